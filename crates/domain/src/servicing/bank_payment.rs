//! A payment link paid by open-banking payment initiation: the payer's
//! authorisation under way at their bank, and how often lendhub asks the
//! bank how a submitted payment stands. The bank decides when money has
//! arrived; lendhub only chooses when to ask.

use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use crate::lending::journey::{same_hash, session_hash};

/// The payer was sent to their bank to authorise a payment consent: the
/// callback must bring back the state whose hash is kept, and the bank's
/// ID token the nonce.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayerAuthorisation {
    pub bank: String,
    /// The bank's payment consent the payer is authorising.
    pub consent_id: String,
    pub state_hash: String,
    pub nonce: String,
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    /// A VRP consent for the payment's schedule (its mandate), not a
    /// single payment's consent.
    #[serde(default)]
    pub for_mandate: bool,
}

/// How long a payer has to authorise at their bank.
pub const PAYER_AUTHORISATION_LIFE: Duration = Duration::minutes(15);

/// The first question to the bank after submission; each later one waits
/// as long again as the payment has been in progress, up to
/// [`CHECK_AT_MOST_EVERY`]. Faster Payments usually settles in seconds, so
/// most payments are answered by the first.
pub const FIRST_CHECK_AFTER: Duration = Duration::seconds(10);
pub const CHECK_AT_MOST_EVERY: Duration = Duration::hours(1);

impl PayerAuthorisation {
    pub fn new(
        bank: &str,
        consent_id: &str,
        state: &str,
        nonce: &str,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            bank: bank.to_owned(),
            consent_id: consent_id.to_owned(),
            state_hash: session_hash(state),
            nonce: nonce.to_owned(),
            started_at: now,
            for_mandate: false,
        }
    }

    /// The same, for a mandate's VRP consent.
    pub fn for_mandate(self) -> Self {
        Self {
            for_mandate: true,
            ..self
        }
    }

    /// Whether the callback's `state` is this authorisation's (compared
    /// in constant time), however long ago.
    pub fn answered_by(&self, state: &str) -> bool {
        same_hash(state, &self.state_hash)
    }

    /// Whether the payer may still come back with it.
    pub fn is_live(&self, now: OffsetDateTime) -> bool {
        now < self.started_at + PAYER_AUTHORISATION_LIFE
    }
}

/// When to ask the bank next about a payment submitted at `submitted_at`
/// and last asked about at `checked_at`: a doubling interval.
pub fn next_check(submitted_at: OffsetDateTime, checked_at: OffsetDateTime) -> OffsetDateTime {
    let waited = checked_at - submitted_at;
    checked_at + waited.clamp(FIRST_CHECK_AFTER, CHECK_AT_MOST_EVERY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn an_authorisation_answers_its_own_state_for_a_while() {
        let now = datetime!(2026-11-30 10:00 UTC);
        let a = PayerAuthorisation::new("model_bank", "pdc-1", "st4te", "n0nce", now);
        assert!(a.answered_by("st4te") && a.is_live(now));
        assert!(!a.answered_by("other"));
        assert!(!a.is_live(now + PAYER_AUTHORISATION_LIFE));
        assert_ne!(a.state_hash, "st4te", "only its hash is kept");
    }

    #[test]
    fn the_bank_is_asked_ever_less_often_up_to_hourly() {
        let t = datetime!(2026-11-30 10:00 UTC);
        assert_eq!(next_check(t, t), t + FIRST_CHECK_AFTER);
        let first = t + FIRST_CHECK_AFTER;
        assert_eq!(next_check(t, first), first + Duration::seconds(10));
        let later = t + Duration::minutes(5);
        assert_eq!(next_check(t, later), later + Duration::minutes(5));
        let day = t + Duration::days(1);
        assert_eq!(next_check(t, day), day + CHECK_AT_MOST_EVERY);
    }
}
