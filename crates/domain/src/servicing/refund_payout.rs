//! A refund's money on its way back to the account that paid (issue #47
//! item 4): committed with the refund, sent by a worker over the payout
//! rail under its own id (the end-to-end id, so a resend is never a second
//! payment), and ended only by the rail's word. Its states are the
//! disbursement's (`lending::disbursement::State`): the same outbox.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::ids::RefundId;
use crate::lending::disbursement::{RESEND_AFTER, State, WrongState};
use crate::money::Money;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefundPayout {
    pub id: RefundId,
    pub amount: Money,
    /// Sort code then account number: the account that paid.
    pub payee: String,
    pub state: State,
    #[serde(with = "time::serde::rfc3339")]
    pub requested_at: OffsetDateTime,
}

impl RefundPayout {
    pub fn new(id: RefundId, amount: Money, payee: &str, now: OffsetDateTime) -> Self {
        Self {
            id,
            amount,
            payee: payee.to_owned(),
            state: State::Due,
            requested_at: now,
        }
    }

    fn to(&self, state: State) -> Self {
        Self {
            state,
            ..self.clone()
        }
    }

    /// Claimed by a worker at `now` (`State::claim`).
    pub fn claim(&self, now: OffsetDateTime) -> Result<Self, WrongState> {
        self.state.claim(now).map(|s| self.to(s))
    }

    /// The rail paid it.
    pub fn settle(&self, rail_payment_id: &str, at: OffsetDateTime) -> Result<Self, WrongState> {
        self.state.settle(rail_payment_id, at).map(|s| self.to(s))
    }

    /// The payer's bank refused it, for the rail's `reason`.
    pub fn reject(&self, reason: &str, at: OffsetDateTime) -> Result<Self, WrongState> {
        self.state.reject(reason, at).map(|s| self.to(s))
    }

    /// When a worker should next look at it: at once while due, a claim's
    /// `RESEND_AFTER` later while sending; never once ended.
    pub fn next_at(&self) -> Option<OffsetDateTime> {
        match self.state {
            State::Due => Some(self.requested_at),
            State::Sending { claimed_at } => Some(claimed_at + RESEND_AFTER),
            _ => None,
        }
    }

    /// As the payment shows it: `pending`, `paid` or `failed`.
    pub fn status(&self) -> &'static str {
        match self.state {
            State::Settled { .. } => "paid",
            State::Rejected { .. } | State::Cancelled { .. } => "failed",
            State::Due | State::Sending { .. } => "pending",
        }
    }
}

#[cfg(test)]
mod tests {
    use time::Duration;
    use time::macros::datetime;

    use super::*;
    use crate::ids::HubId;

    const NOW: OffsetDateTime = datetime!(2026-11-30 12:00 UTC);

    fn refund() -> RefundPayout {
        RefundPayout::new(
            RefundId::generate(1, 1),
            Money::pence(4_000),
            "04000412345678",
            NOW,
        )
    }

    #[test]
    fn a_refund_is_claimed_once_until_its_claim_lapses_and_ends_once() {
        let due = refund();
        assert_eq!(due.next_at(), Some(NOW));
        let sending = due.claim(NOW).unwrap();
        assert_eq!(sending.claim(NOW + Duration::seconds(59)), Err(WrongState));
        let again = sending.claim(NOW + RESEND_AFTER).unwrap();
        assert_eq!(again.next_at(), Some(NOW + RESEND_AFTER + RESEND_AFTER));
        let paid = again.settle("txn-1", NOW).unwrap();
        assert_eq!(paid.status(), "paid");
        assert_eq!(paid.next_at(), None);
        assert_eq!(paid.reject("AC07", NOW), Err(WrongState));
        assert_eq!(due.settle("txn-1", NOW), Err(WrongState), "sent first");
        let failed = sending.reject("AC07", NOW).unwrap();
        assert_eq!(failed.status(), "failed");
        assert_eq!(failed.settle("txn-1", NOW), Err(WrongState));
    }
}
