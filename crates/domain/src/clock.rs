//! Time as a dependency. Every expiry, retry schedule and TTL reads a [`Clock`],
//! so tests move time instead of sleeping. The clocks that read the system's
//! time live outside the domain (`lendhub-system`).

use time::OffsetDateTime;

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> OffsetDateTime;

    fn now_ms(&self) -> i64 {
        unix_ms(self.now())
    }
}

pub fn unix_ms(t: OffsetDateTime) -> i64 {
    (t.unix_timestamp_nanos() / 1_000_000) as i64
}

pub fn from_unix_ms(ms: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

/// An RFC 3339 timestamp (as a query parameter gives it) as Unix milliseconds.
pub fn parse_rfc3339_ms(raw: &str) -> Option<i64> {
    OffsetDateTime::parse(raw, &time::format_description::well_known::Rfc3339)
        .ok()
        .map(unix_ms)
}
