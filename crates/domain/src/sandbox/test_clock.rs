//! The sandbox test clock: each client's clock is the service clock plus an
//! offset of its own, which only ever grows (until a reset puts it back to
//! zero). Everything time-driven for that client — webhook retries, offer
//! expiry, idempotency-key expiry, referral resolution, the timestamps of
//! what it creates — reads its clock; access-token lifetimes do not.

use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};

/// The most one advance may move a clock.
pub const MAX_ADVANCE: Duration = Duration::days(400);

/// A client's clock, as an offset from the service clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientClock {
    offset_ms: i64,
}

impl ClientClock {
    pub fn new(offset_ms: i64) -> Self {
        Self { offset_ms }
    }

    pub fn offset_ms(self) -> i64 {
        self.offset_ms
    }

    /// The client's time when the service clock reads `service_now`.
    pub fn now(self, service_now: OffsetDateTime) -> OffsetDateTime {
        service_now
            .checked_add(Duration::milliseconds(self.offset_ms))
            .unwrap_or(service_now)
    }
}

/// How far to move a clock: by a number of seconds, or to an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advance {
    By(i64),
    To(OffsetDateTime),
}

/// A field of an advance request that is wrong on its face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldProblem {
    pub field: &'static str,
    pub reason: &'static str,
}

impl Advance {
    /// Reads the request body's two members: exactly one of `seconds` (an
    /// integer) or `to` (an RFC 3339 instant).
    pub fn from_fields(seconds: Option<i64>, to: Option<&str>) -> Result<Self, FieldProblem> {
        match (seconds, to) {
            (Some(_), Some(_)) => Err(FieldProblem {
                field: "to",
                reason: "mutually_exclusive_with_seconds",
            }),
            (None, None) => Err(FieldProblem {
                field: "seconds",
                reason: "required",
            }),
            (Some(s), None) => Ok(Advance::By(s)),
            (None, Some(raw)) => OffsetDateTime::parse(raw, &Rfc3339)
                .map(Advance::To)
                .map_err(|_| FieldProblem {
                    field: "to",
                    reason: "format",
                }),
        }
    }

    /// The field the request named, for error details.
    pub fn field(self) -> &'static str {
        match self {
            Advance::By(_) => "seconds",
            Advance::To(_) => "to",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AdvanceError {
    #[error("the test clock only moves forward: the requested time is before its now")]
    Backwards { now: OffsetDateTime },
    #[error("one advance may move the test clock at most 400 days")]
    TooFar,
}

/// The clock after advancing `clock`, whose time is `now`, as `request` says.
/// Moving by zero is allowed and changes nothing.
pub fn advance(
    clock: ClientClock,
    now: OffsetDateTime,
    request: Advance,
) -> Result<ClientClock, AdvanceError> {
    let by = match request {
        Advance::By(seconds) if seconds < 0 => return Err(AdvanceError::Backwards { now }),
        Advance::By(seconds) if seconds > MAX_ADVANCE.whole_seconds() => {
            return Err(AdvanceError::TooFar);
        }
        Advance::By(seconds) => Duration::seconds(seconds),
        Advance::To(at) if at < now => return Err(AdvanceError::Backwards { now }),
        Advance::To(at) if at - now > MAX_ADVANCE => return Err(AdvanceError::TooFar),
        Advance::To(at) => at - now,
    };
    // The clock must stay representable (before the year 10000).
    now.checked_add(by).ok_or(AdvanceError::TooFar)?;
    let offset_ms = clock
        .offset_ms
        .checked_add(by.whole_milliseconds() as i64)
        .ok_or(AdvanceError::TooFar)?;
    Ok(ClientClock { offset_ms })
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    const NOW: OffsetDateTime = datetime!(2026-11-21 12:00 UTC);

    #[test]
    fn a_clock_reads_the_service_clock_plus_its_offset() {
        assert_eq!(ClientClock::default().now(NOW), NOW);
        assert_eq!(
            ClientClock::new(90_000).now(NOW),
            NOW + Duration::seconds(90)
        );
    }

    #[test]
    fn advancing_by_seconds_adds_to_the_offset() {
        let clock = ClientClock::new(1_000);
        let moved = advance(clock, NOW, Advance::By(60)).unwrap();
        assert_eq!(moved.offset_ms(), 61_000);
        assert_eq!(advance(clock, NOW, Advance::By(0)), Ok(clock));
    }

    #[test]
    fn advancing_to_an_instant_moves_by_the_difference() {
        let clock = ClientClock::new(5_000);
        let now = clock.now(NOW);
        let moved = advance(clock, now, Advance::To(now + Duration::hours(73))).unwrap();
        assert_eq!(moved.now(NOW), now + Duration::hours(73));
    }

    #[test]
    fn backwards_is_refused_either_way() {
        let clock = ClientClock::default();
        assert_eq!(
            advance(clock, NOW, Advance::By(-1)),
            Err(AdvanceError::Backwards { now: NOW })
        );
        assert_eq!(
            advance(clock, NOW, Advance::To(NOW - Duration::milliseconds(1))),
            Err(AdvanceError::Backwards { now: NOW })
        );
    }

    #[test]
    fn at_most_400_days_per_call() {
        let clock = ClientClock::default();
        let max = MAX_ADVANCE.whole_seconds();
        assert!(advance(clock, NOW, Advance::By(max)).is_ok());
        assert_eq!(
            advance(clock, NOW, Advance::By(max + 1)),
            Err(AdvanceError::TooFar)
        );
        assert!(advance(clock, NOW, Advance::To(NOW + MAX_ADVANCE)).is_ok());
        assert_eq!(
            advance(
                clock,
                NOW,
                Advance::To(NOW + MAX_ADVANCE + Duration::seconds(1))
            ),
            Err(AdvanceError::TooFar)
        );
        let end = datetime!(9999-12-31 0:00 UTC);
        assert_eq!(
            advance(clock, end, Advance::By(max)),
            Err(AdvanceError::TooFar),
            "never past what a timestamp can say"
        );
    }

    #[test]
    fn the_request_names_exactly_one_of_seconds_and_to() {
        assert_eq!(Advance::from_fields(Some(5), None), Ok(Advance::By(5)));
        assert_eq!(
            Advance::from_fields(None, Some("2026-11-21T12:00:00Z")),
            Ok(Advance::To(NOW))
        );
        assert_eq!(
            Advance::from_fields(None, Some("tomorrow")).map_err(|p| p.reason),
            Err("format")
        );
        assert_eq!(
            Advance::from_fields(None, None).map_err(|p| (p.field, p.reason)),
            Err(("seconds", "required"))
        );
        assert_eq!(
            Advance::from_fields(Some(1), Some("2026-11-21T12:00:00Z")).map_err(|p| p.field),
            Err("to")
        );
    }
}
