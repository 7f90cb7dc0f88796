// The user store: a map from id to user, seeded with 10,000 users, behind a read-write lock, as the Go server's
// store.go has it. Tomcat runs requests on many threads at once, so the map needs a lock: many GETs may read at
// once, a POST writes alone.
package dev.fairpair.users;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/** The users, seeded with ids 1..=10000, holding at most its capacity (seed included). */
public final class Store {
    /** How many users every store starts with: ids 1..=10000. */
    public static final int SEED_USERS = 10_000;
    /** The largest --max-users allowed: the same bound as the other servers' (a JavaScript Map's limit). */
    public static final int MAX_CAPACITY = 16_777_216;

    /** A stored user; its JSON has the keys in the contract's order: id, name, email. */
    public record User(long id, String name, String email) {
    }

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<Long, User> users = new HashMap<>(SEED_USERS * 2);
    private final int capacity;
    private long nextId = SEED_USERS + 1;

    public Store(int capacity) {
        this.capacity = capacity;
        for (long id = 1; id <= SEED_USERS; id++) {
            users.put(id, new User(id, "User " + id, "user" + id + "@example.com"));
        }
    }

    public int capacity() {
        return capacity;
    }

    /** The user with this id, or null. */
    public User get(long id) {
        lock.readLock().lock();
        try {
            return users.get(id);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Stores a new user under the next id and returns it, or returns null when the store is full. */
    public User create(String name, String email) {
        lock.writeLock().lock();
        try {
            if (users.size() >= capacity) {
                return null;
            }
            User user = new User(nextId++, name, email);
            users.put(user.id(), user);
            return user;
        } finally {
            lock.writeLock().unlock();
        }
    }

    public int size() {
        lock.readLock().lock();
        try {
            return users.size();
        } finally {
            lock.readLock().unlock();
        }
    }
}
