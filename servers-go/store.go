// The user store: a Go map from id to user, seeded with 10,000 users, behind a read-write lock.
//
// Unlike Node's single thread, Go runs handlers on as many threads as GOMAXPROCS allows (`--workers`), so the map
// needs a lock: many GETs may read at once, a POST writes alone. The Rust side's DashMap shards its lock instead;
// one RWMutex is the plain Go habit, and what the article's Go server used.

package main

import (
	"strconv"
	"sync"
)

// SeedUsers is how many users every store starts with: ids 1..=10000.
const SeedUsers = 10_000

// MaxCapacity is the largest --max-users allowed: the same bound as Node's (a Map's limit) and Rust's.
const MaxCapacity = 16_777_216

// User is a stored user. Its JSON (user.json) has the keys in the contract's order: id, name, email.
type User struct {
	ID    uint64
	Name  string
	Email string
}

// UserStore holds the users. The zero value is not usable; call NewUserStore.
type UserStore struct {
	mu       sync.RWMutex
	users    map[uint64]*User
	nextID   uint64
	capacity int
}

// NewUserStore builds a store seeded with SeedUsers users that holds at most capacity users, seed included.
func NewUserStore(capacity int) *UserStore {
	store := &UserStore{users: make(map[uint64]*User, SeedUsers), nextID: SeedUsers + 1, capacity: capacity}
	for id := uint64(1); id <= SeedUsers; id++ {
		text := strconv.FormatUint(id, 10)
		store.users[id] = &User{ID: id, Name: "User " + text, Email: "user" + text + "@example.com"}
	}
	return store
}

// Get returns the user with this id, or nil.
func (s *UserStore) Get(id uint64) *User {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.users[id]
}

// Create stores a new user under the next id and returns it, or returns nil when the store is full. The user is
// built here from two validated strings; nothing else from the request reaches it.
func (s *UserStore) Create(name, email string) *User {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.users) >= s.capacity {
		return nil
	}
	user := &User{ID: s.nextID, Name: name, Email: email}
	s.nextID++
	s.users[user.ID] = user
	return user
}

// Size is how many users the store holds now.
func (s *UserStore) Size() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.users)
}
