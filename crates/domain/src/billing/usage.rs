//! What the dashboard's charts count, per partner environment and UTC day
//! on the owner's clock: REST-tier requests and how they ended, and webhook
//! delivery attempts and how they went.

use time::OffsetDateTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Every request a partner credential made.
    Requests,
    /// Of those, answered 4xx (the caller's to fix).
    ClientErrors,
    /// Of those, answered 5xx (lendhub's).
    ServerErrors,
    /// Webhook delivery attempts the receiver answered 2xx.
    DeliveriesOk,
    /// Webhook delivery attempts that failed.
    DeliveriesFailed,
}

impl Metric {
    pub const ALL: [Metric; 5] = [
        Metric::Requests,
        Metric::ClientErrors,
        Metric::ServerErrors,
        Metric::DeliveriesOk,
        Metric::DeliveriesFailed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Requests => "requests",
            Metric::ClientErrors => "client_errors",
            Metric::ServerErrors => "server_errors",
            Metric::DeliveriesOk => "deliveries_ok",
            Metric::DeliveriesFailed => "deliveries_failed",
        }
    }

    pub fn parse(raw: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.as_str() == raw)
    }

    /// The error metric an answer's status adds to, besides `Requests`.
    pub fn error_of(status: u16) -> Option<Metric> {
        match status {
            400..=499 => Some(Metric::ClientErrors),
            500..=599 => Some(Metric::ServerErrors),
            _ => None,
        }
    }
}

/// The UTC day `at` falls on, `YYYY-MM-DD`: how days are keyed.
pub fn day(at: OffsetDateTime) -> String {
    at.to_offset(time::UtcOffset::UTC).date().to_string()
}

/// The `n` days ending with `last`, oldest first.
pub fn days_ending(last: time::Date, n: u16) -> Vec<time::Date> {
    (0..i64::from(n))
        .rev()
        .filter_map(|back| last.checked_sub(time::Duration::days(back)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_count_where_they_belong_and_days_are_utc() {
        assert_eq!(Metric::error_of(200), None);
        assert_eq!(Metric::error_of(304), None);
        assert_eq!(Metric::error_of(404), Some(Metric::ClientErrors));
        assert_eq!(Metric::error_of(429), Some(Metric::ClientErrors));
        assert_eq!(Metric::error_of(503), Some(Metric::ServerErrors));
        for m in Metric::ALL {
            assert_eq!(Metric::parse(m.as_str()), Some(m));
        }
        let late = time::macros::datetime!(2026-11-30 23:30 -02:00);
        assert_eq!(day(late), "2026-12-01");
        let days = days_ending(time::macros::date!(2026 - 03 - 02), 3);
        assert_eq!(
            days,
            [
                time::macros::date!(2026 - 02 - 28),
                time::macros::date!(2026 - 03 - 01),
                time::macros::date!(2026 - 03 - 02)
            ]
        );
    }
}
