//! The in-memory user store.
//!
//! A `DashMap` is a hash map split into shards, each behind its own read-write lock, so requests on different
//! workers rarely wait for each other. Its guards are ordinary (blocking) locks, which is fine as long as none is
//! held across an `.await`: a task suspended while holding one would stall every other task that needs the same
//! shard. That is why every method here is synchronous and takes a closure instead of returning a guard — the
//! borrow ends before the caller can await anything (and clippy's `await_holding_lock` lint stands guard too).

use std::sync::atomic::{AtomicU64, Ordering};

use dashmap::DashMap;

use crate::validation::{NewUser, User};

/// How many users are created at start-up: ids 1 to 10,000.
pub const SEED_USERS: u64 = 10_000;

/// The store is full: it already holds `max_users` users.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreFull;

/// The users, by id.
#[derive(Debug)]
pub struct Store {
    users: DashMap<u64, User>,
    /// The id the next new user gets. Ids are never reused and users are never deleted, so `next_id - 1` is also the
    /// number of users.
    next_id: AtomicU64,
    max_users: u64,
}

impl Store {
    /// A store holding the 10,000 seed users (`{"id":N,"name":"User N","email":"userN@example.com"}`), with room for
    /// `max_users` users in all.
    ///
    /// The map is sized for the seed only: reserving room for `max_users` (a million by default) up front would
    /// cost tens of megabytes that an idle server never uses. It grows as users are added.
    ///
    /// # Panics
    ///
    /// If `max_users` is below [`SEED_USERS`]: the flags parser rejects such values before this is called.
    pub fn seeded(max_users: u64) -> Store {
        assert!(max_users >= SEED_USERS, "max_users must be at least {SEED_USERS}");
        let users = DashMap::with_capacity(SEED_USERS as usize);
        for id in 1..=SEED_USERS {
            let user = User {
                id,
                name: format!("User {id}").into_boxed_str(),
                email: format!("user{id}@example.com").into_boxed_str(),
            };
            users.insert(id, user);
        }
        Store { users, next_id: AtomicU64::new(SEED_USERS + 1), max_users }
    }

    /// Calls `view` with the user `id`, if there is one, while the user's shard is read-locked.
    ///
    /// Handing out a view instead of a copy lets a handler serialise the user in place: no clone of its strings on
    /// the hottest path of the benchmark.
    pub fn read<R>(&self, id: u64, view: impl FnOnce(&User) -> R) -> Option<R> {
        self.users.get(&id).map(|user| view(&user))
    }

    /// Stores a new user under the next id and returns what `view` makes of it, or [`StoreFull`].
    ///
    /// The id is claimed with a compare-and-swap that also checks the capacity, so two concurrent requests can never
    /// both take the last free place. `view` runs before the user is inserted, so it holds no lock.
    pub fn create<R>(&self, new_user: NewUser, view: impl FnOnce(&User) -> R) -> Result<R, StoreFull> {
        let id = self
            .next_id
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |next| (next <= self.max_users).then_some(next + 1))
            .map_err(|_| StoreFull)?;
        let user = new_user.with_id(id);
        let result = view(&user);
        self.users.insert(id, user);
        Ok(result)
    }

    /// How many users the store holds.
    pub fn len(&self) -> usize {
        self.users.len()
    }

    /// Whether the store is empty (it never is: the seed is always there).
    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    /// The capacity, `--max-users`.
    pub fn max_users(&self) -> u64 {
        self.max_users
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_user(name: &str) -> NewUser {
        NewUser::parse(format!(r#"{{"name":"{name}","email":"a@b"}}"#).as_bytes()).unwrap()
    }

    #[test]
    fn seeds_ten_thousand_users() {
        let store = Store::seeded(SEED_USERS);
        assert_eq!(store.len(), 10_000);
        let user = store.read(500, User::clone).unwrap();
        assert_eq!(user, User { id: 500, name: "User 500".into(), email: "user500@example.com".into() });
        assert_eq!(store.read(1, |u| u.id), Some(1));
        assert_eq!(store.read(10_000, |u| u.id), Some(10_000));
        assert_eq!(store.read(0, |u| u.id), None);
        assert_eq!(store.read(10_001, |u| u.id), None);
    }

    #[test]
    fn new_users_get_the_next_ids() {
        let store = Store::seeded(1_000_000);
        assert_eq!(store.create(new_user("A"), |u| u.id), Ok(10_001));
        assert_eq!(store.create(new_user("B"), |u| u.id), Ok(10_002));
        assert_eq!(store.read(10_002, |u| u.name.clone()), Some("B".into()));
        assert_eq!(store.len(), 10_002);
    }

    #[test]
    fn refuses_users_beyond_capacity() {
        let store = Store::seeded(10_002);
        assert_eq!(store.create(new_user("A"), |u| u.id), Ok(10_001));
        assert_eq!(store.create(new_user("B"), |u| u.id), Ok(10_002));
        assert_eq!(store.create(new_user("C"), |u| u.id), Err(StoreFull));
        assert_eq!(store.len(), 10_002);

        let full = Store::seeded(SEED_USERS);
        assert_eq!(full.create(new_user("A"), |u| u.id), Err(StoreFull));
    }

    #[test]
    fn concurrent_creates_never_exceed_capacity_nor_share_an_id() {
        let store = Store::seeded(10_100);
        let mut ids: Vec<u64> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        (0..50).filter_map(|_| store.create(new_user("X"), |u| u.id).ok()).collect::<Vec<_>>()
                    })
                })
                .collect();
            workers.into_iter().flat_map(|worker| worker.join().unwrap()).collect()
        });
        ids.sort_unstable();
        assert_eq!(ids, (10_001..=10_100).collect::<Vec<_>>());
        assert_eq!(store.len(), 10_100);
    }
}
