//! The store of the POST runs: how many users a server may hold (`--max-users`), sized from what preflight measured.
//! A full store answers 507, which is not served work, so the store must outlast a run; and it must fit in memory.
//!
//! [`Calibration`] is what preflight hands to the runs: the store they start with. The plan is not revised: its
//! settings keep what the user asked (`--post-max-users`, or none), and each run records the store it got.

use crate::schema::{MAX_MAX_USERS, MIN_MAX_USERS, StoreLimit, StoreSizing};

/// The store is sized for this multiple of the measured POST rate: a measured run may be faster than the short
/// calibration (a warmer JIT, a quieter machine), and a rerun with a larger store catches what is left.
pub const STORE_MARGIN: f64 = 1.5;
/// The least memory assumed per stored user, measured or not: RSS grows in steps (a heap doubling), so a short run
/// can show less than the store will take, and a user with its map entry and strings takes a few hundred bytes in
/// either server.
pub const MIN_BYTES_PER_USER: f64 = 512.0;
/// Fewer users than this in a calibration say nothing about memory per user: a single heap step dominates (seen: 8 KB
/// "per user" from 1,700 users on a busy machine).
pub const MIN_USERS_FOR_MEMORY: u64 = 50_000;
/// A rerun after unexpected statuses gets this many times the store.
pub const RERUN_STORE_FACTOR: u64 = 4;

/// What preflight measured that the runs read.
#[derive(Clone, Debug, Default)]
pub struct Calibration {
    /// How the store of the POST runs was sized (given, or from the measured rate); `None` without a POST run, or
    /// when no rate could be measured.
    pub store: Option<StoreSizing>,
}

impl Calibration {
    /// The store a POST run starts with: the sized one, else the largest the servers accept.
    pub fn post_max_users(&self) -> u64 {
        self.store.as_ref().map_or(MAX_MAX_USERS, |s| s.max_users)
    }
}

/// Resident memory grown per created user, when both are measurable (enough users, some growth).
pub fn bytes_per_user(rss_before_kib: u64, rss_after_kib: u64, created: u64) -> Option<f64> {
    (rss_after_kib > rss_before_kib && created >= MIN_USERS_FOR_MEMORY)
        .then(|| (rss_after_kib - rss_before_kib) as f64 * 1024.0 / created as f64)
}

/// Sizes the store from the fastest measured POST rate: the seed plus `rate × window × margin` users, within the
/// servers' cap and half of the machine's available memory (one server runs at a time). `None` without any rate.
pub fn size_store(rates: &[(String, f64)], window_s: u64, bytes_per_user: f64, budget_kib: u64) -> Option<StoreSizing> {
    let (from_subject, from_rps) = rates.iter().max_by(|a, b| a.1.total_cmp(&b.1)).cloned()?;
    let bytes_per_user = bytes_per_user.max(MIN_BYTES_PER_USER);
    let by_rate = MIN_MAX_USERS + (from_rps * window_s as f64 * STORE_MARGIN).ceil() as u64;
    let by_memory = (budget_kib as f64 * 1024.0 / bytes_per_user) as u64;
    let (max_users, limited_by) = if by_rate <= MAX_MAX_USERS.min(by_memory) {
        (by_rate, StoreLimit::Rate)
    } else if MAX_MAX_USERS <= by_memory {
        (MAX_MAX_USERS, StoreLimit::Cap)
    } else {
        (by_memory.max(MIN_MAX_USERS), StoreLimit::Memory)
    };
    Some(StoreSizing {
        max_users,
        from_subject,
        from_rps,
        window_s,
        margin: STORE_MARGIN,
        limited_by,
        memory_budget_kib: budget_kib,
        bytes_per_user,
    })
}

/// The record of a store size given with `--post-max-users`: nothing calibrated, the memory limit still known for a
/// rerun.
pub fn given_store(max_users: u64, budget_kib: u64) -> StoreSizing {
    StoreSizing {
        max_users,
        from_subject: String::new(),
        from_rps: 0.0,
        window_s: 0,
        margin: 1.0,
        limited_by: StoreLimit::Given,
        memory_budget_kib: budget_kib,
        bytes_per_user: MIN_BYTES_PER_USER,
    }
}

/// The store for a rerun after unexpected statuses: [`RERUN_STORE_FACTOR`] times larger, or sized like preflight
/// does from the rate the failed run reached if that is more (the calibration may have met a busy machine), within
/// the same limits; `None` when it cannot grow (already at a limit), so rerunning would change nothing.
pub fn larger_store(current: u64, observed_rps: f64, window_s: u64, sizing: Option<&StoreSizing>) -> Option<u64> {
    let memory_cap = sizing.map_or(MAX_MAX_USERS, |s| (s.memory_budget_kib as f64 * 1024.0 / s.bytes_per_user) as u64);
    let by_rate = MIN_MAX_USERS + (observed_rps.max(0.0) * window_s as f64 * STORE_MARGIN).ceil() as u64;
    let larger = current.saturating_mul(RERUN_STORE_FACTOR).max(by_rate).min(MAX_MAX_USERS).min(memory_cap);
    (larger > current).then_some(larger)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::summarise::store_sentence;

    #[test]
    fn the_store_is_sized_from_the_fastest_measured_rate() {
        let rates = vec![("rust".to_string(), 125_000.0), ("node".to_string(), 20_000.0)];
        let s = size_store(&rates, 20, 150.0, 8 * 1024 * 1024).unwrap();
        assert_eq!((s.from_subject.as_str(), s.limited_by), ("rust", StoreLimit::Rate));
        assert_eq!(s.max_users, 10_000 + 125_000 * 20 * 3 / 2);
        let line = store_sentence(&s);
        assert!(line.starts_with("`--max-users 3760000` = 10,000 + 125,000 POST/s (rust"), "{line}");
    }

    #[test]
    fn the_store_stays_within_the_cap_and_the_memory() {
        let fast = vec![("rust".to_string(), 1_000_000.0)];
        let s = size_store(&fast, 20, 150.0, 64 * 1024 * 1024).unwrap();
        assert_eq!((s.max_users, s.limited_by), (MAX_MAX_USERS, StoreLimit::Cap));
        // 1 GiB budget at 1 KiB per user: a million users at most.
        let s = size_store(&fast, 20, 1024.0, 1024 * 1024).unwrap();
        assert_eq!((s.max_users, s.limited_by), (1024 * 1024, StoreLimit::Memory));
        assert!(store_sentence(&s).contains("limited by memory"));
        // An unmeasurable memory per user falls back to the floor; a tiny machine still gets the seed's room.
        let s = size_store(&fast, 20, 0.0, 100).unwrap();
        assert_eq!((s.bytes_per_user, s.max_users), (MIN_BYTES_PER_USER, MIN_MAX_USERS));
        assert_eq!(size_store(&[], 20, 150.0, 1 << 30), None);
    }

    #[test]
    fn memory_per_user_needs_growth_and_users() {
        assert_eq!(bytes_per_user(1_000, 101_000, 102_400), Some(1000.0));
        assert_eq!(bytes_per_user(2_000, 2_000, 102_400), None);
        assert_eq!(bytes_per_user(1_000, 2_000, 0), None);
        assert_eq!(bytes_per_user(1_000, 15_000, 1_700), None, "too few users to tell a heap step from a user");
    }

    #[test]
    fn a_rerun_gets_a_larger_store_only_when_one_fits() {
        assert_eq!(larger_store(1_000_000, 0.0, 20, None), Some(4_000_000));
        // Calibrated on a busy machine (a store of 44,341), then the run went at 100,000/s: sized from that rate.
        assert_eq!(larger_store(44_341, 100_000.0, 20, None), Some(10_000 + 3_000_000));
        assert_eq!(larger_store(10_000_000, 0.0, 20, None), Some(MAX_MAX_USERS));
        assert_eq!(larger_store(MAX_MAX_USERS, 1e6, 20, None), None);
        let tight = size_store(&[("rust".into(), 1e6)], 20, 1024.0, 1024 * 1024).unwrap();
        assert_eq!(larger_store(tight.max_users, 1e6, 20, Some(&tight)), None, "already at the memory limit");
        assert_eq!(Calibration::default().post_max_users(), MAX_MAX_USERS);
    }
}
