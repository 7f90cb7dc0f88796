//! The `--log` line, one per request, in the format every fairpair server writes (contract/CONTRACT.md, "Running a
//! server"): `2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms` — the UTC time the request was answered, the
//! method, the request target as sent, the status, and the handler's latency in milliseconds.
//!
//! The line is written straight to stderr rather than through `tracing`'s formatter, whose prefix (level, module) the
//! Node and Go servers have no equivalent of. It is enabled like a debug event of the target [`TARGET`], so
//! `--log` and `RUST_LOG=users_api::request_log=debug` both switch it on, and checking costs one atomic load when off.

use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The `tracing` target that enables the request lines.
pub const TARGET: &str = "users_api::request_log";

/// Whether request lines are on (checked once per request).
pub fn enabled() -> bool {
    tracing::enabled!(target: TARGET, tracing::Level::DEBUG)
}

/// Writes one request line to stderr; a failed write (stderr closed) is not the request's problem.
pub fn write(method: &str, target: &str, status: u16, latency: Duration) {
    let line = line(SystemTime::now(), method, target, status, latency);
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The line itself, without its newline.
pub fn line(at: SystemTime, method: &str, target: &str, status: u16, latency: Duration) -> String {
    format!("{} {method} {target} {status} {:.3}ms", timestamp(at), latency.as_secs_f64() * 1e3)
}

/// RFC 3339 in UTC with milliseconds, as JavaScript's `Date.prototype.toISOString` writes it.
pub fn timestamp(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar (Howard Hinnant's
/// `civil_from_days`); the standard library has no calendar, and a dependency for one line is not worth it.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64, millis: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis)
    }

    #[test]
    fn the_line_has_the_contract_format() {
        // 1_796_065_200 s after the epoch is 2026-11-30T19:00:00Z.
        let line = line(at(1_796_065_200, 123), "GET", "/users/500", 200, Duration::from_micros(123));
        assert_eq!(line, "2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms");
        let line = line_at_epoch("POST", "/users?x=1", 201, Duration::from_nanos(12_345_678));
        assert_eq!(line, "1970-01-01T00:00:00.000Z POST /users?x=1 201 12.346ms");
    }

    fn line_at_epoch(method: &str, target: &str, status: u16, latency: Duration) -> String {
        line(UNIX_EPOCH, method, target, status, latency)
    }

    #[test]
    fn timestamps_across_the_calendar() {
        // Checked against `date -u -d @SECS +%FT%T`.
        for (secs, want) in [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400, "2000-02-29T00:00:00.000Z"),
            (1_709_164_799, "2024-02-28T23:59:59.000Z"),
            (1_709_251_200, "2024-03-01T00:00:00.000Z"),
            (4_102_444_800, "2100-01-01T00:00:00.000Z"),
        ] {
            assert_eq!(timestamp(at(secs, 0)), want, "{secs}");
        }
    }
}
