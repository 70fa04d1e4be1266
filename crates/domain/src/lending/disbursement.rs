//! A loan's disbursement intent: the outbox row of a payout. It is
//! committed with the signature (so an acknowledged signature cannot lose
//! its payout), claimed by the worker in a commit of its own before the
//! rail is called (so a withdrawal either cancels it first or is refused
//! after: the money is committed), sent under its id as the payment's
//! end-to-end id, the rail's duplicate check (so a worker that died after
//! the call sends the same payment again, never a second one), and closed
//! only by the rail's word that the payment ended (its webhook, or its
//! answer when asked).
//!
//! ```text
//! due ──claim──▶ sending ──rail confirms──▶ settled
//!  │               │  ▲
//!  │               │  └── claimed again after RESEND_AFTER with no word
//!  │               │      (the rail asked first; sent again if unknown)
//!  │               └────rail rejects───────▶ rejected
//!  └──withdrawal or release──▶ cancelled
//! ```

use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use crate::ids::{AccountId, DisbursementId, HubId};
use crate::ledger::transfer::Transfer;
use crate::money::Money;

/// How long a claimed disbursement waits for the rail's word before the
/// worker asks the rail about it (and sends it again, under the same
/// end-to-end id, if the rail never received it).
pub const RESEND_AFTER: Duration = Duration::minutes(1);

/// The principal on its way to the borrower.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disbursement {
    /// Also the idempotency key at the rail.
    pub id: DisbursementId,
    pub amount: Money,
    /// The bank the applicant connected, where the loan is paid.
    pub payee_bank: String,
    pub state: State,
    #[serde(with = "time::serde::rfc3339")]
    pub intended_at: OffsetDateTime,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum State {
    /// Committed with the signature; not yet handed to the rail.
    Due,
    /// A worker claimed it and may have called the rail.
    Sending {
        #[serde(with = "time::serde::rfc3339")]
        claimed_at: OffsetDateTime,
    },
    /// The rail paid it.
    Settled {
        rail_payment_id: String,
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
    },
    /// The receiving bank refused it, for the rail's reason.
    Rejected {
        reason: String,
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
    },
    /// Withdrawn or released before any worker claimed it.
    Cancelled {
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
    },
}

/// A move its state does not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the payout is not in a state that allows this")]
pub struct WrongState;

/// The moves of a payment the payout rail carries: a disbursement's, and
/// a refund's (`servicing::refund_payout`), the same outbox.
impl State {
    /// Claimed by a worker at `now`: due, or sending when the last claim's
    /// worker has not been heard of for `RESEND_AFTER`.
    pub fn claim(&self, now: OffsetDateTime) -> Result<Self, WrongState> {
        match *self {
            State::Due => Ok(State::Sending { claimed_at: now }),
            State::Sending { claimed_at } if now >= claimed_at + RESEND_AFTER => {
                Ok(State::Sending { claimed_at: now })
            }
            _ => Err(WrongState),
        }
    }

    /// The rail paid it.
    pub fn settle(&self, rail_payment_id: &str, at: OffsetDateTime) -> Result<Self, WrongState> {
        match self {
            State::Sending { .. } => Ok(State::Settled {
                rail_payment_id: rail_payment_id.to_owned(),
                at,
            }),
            _ => Err(WrongState),
        }
    }

    /// The payee's bank refused it, for the rail's `reason`.
    pub fn reject(&self, reason: &str, at: OffsetDateTime) -> Result<Self, WrongState> {
        match self {
            State::Sending { .. } => Ok(State::Rejected {
                reason: reason.to_owned(),
                at,
            }),
            _ => Err(WrongState),
        }
    }
}

impl Disbursement {
    pub fn intend(
        id: DisbursementId,
        amount: Money,
        payee_bank: &str,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            id,
            amount,
            payee_bank: payee_bank.to_owned(),
            state: State::Due,
            intended_at: now,
        }
    }

    /// The servicing account the loan opens as: the disbursement's id with
    /// the account's prefix, so the ledger can name the loan's accounts
    /// from the moment the money is sent, before the account exists.
    pub fn account_id(&self) -> Option<AccountId> {
        let body = self.id.as_str().strip_prefix("dsb_")?;
        AccountId::parse(&format!("acc_{body}"))
    }

    /// The drawdown as the ledger holds it while the rail has the money:
    /// named after the disbursement, to the loan's principal.
    fn drawdown(&self) -> Option<Transfer> {
        crate::ledger::movements::drawdown(
            self.id.as_str(),
            &self.account_id()?,
            self.amount,
            self.intended_at,
        )
        .ok()
        .map(|t| t.known_at_bank_as(self.id.as_str()))
    }

    /// The ledger's pending drawdown, recorded when a worker first claims
    /// it (the money is sent then).
    pub fn pending_transfer(&self) -> Option<Transfer> {
        matches!(self.state, State::Sending { .. })
            .then(|| self.drawdown())
            .flatten()
    }

    /// The ledger's close of the pending drawdown: posted when the rail
    /// settled it, voided when it was rejected; none before.
    pub fn closing_transfer(&self) -> Option<Transfer> {
        match &self.state {
            State::Settled { at, .. } => self.drawdown()?.post(format!("{}.settled", self.id), *at),
            State::Rejected { at, .. } => {
                self.drawdown()?.void(format!("{}.rejected", self.id), *at)
            }
            _ => None,
        }
    }

    /// Whether the money may have left: a worker claimed it, or it was paid.
    pub fn committed(&self) -> bool {
        matches!(self.state, State::Sending { .. } | State::Settled { .. })
    }

    /// Whether a worker still has to send it (`Due`, or `Sending` again).
    pub fn open(&self) -> bool {
        matches!(self.state, State::Due | State::Sending { .. })
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

    pub fn settle(&self, rail_payment_id: &str, now: OffsetDateTime) -> Result<Self, WrongState> {
        self.state.settle(rail_payment_id, now).map(|s| self.to(s))
    }

    pub fn reject(&self, reason: &str, now: OffsetDateTime) -> Result<Self, WrongState> {
        self.state.reject(reason, now).map(|s| self.to(s))
    }

    /// Set aside before any worker claimed it; refused once one has.
    pub fn cancel(&self, now: OffsetDateTime) -> Result<Self, WrongState> {
        match self.state {
            State::Due => Ok(self.to(State::Cancelled { at: now })),
            State::Cancelled { .. } | State::Rejected { .. } => Ok(self.clone()),
            State::Sending { .. } | State::Settled { .. } => Err(WrongState),
        }
    }

    /// When a worker should next look at it: due `after` signing, or a
    /// claim's `RESEND_AFTER` later; never once closed.
    pub fn next_at(&self, signed_at: OffsetDateTime, after: Duration) -> Option<OffsetDateTime> {
        match self.state {
            State::Due => Some(signed_at + after),
            State::Sending { claimed_at } => Some(claimed_at + RESEND_AFTER),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::book::Book;
    use crate::ledger::transfer::Phase;
    use time::macros::datetime;

    const NOW: OffsetDateTime = datetime!(2026-11-30 12:00 UTC);

    fn intent() -> Disbursement {
        Disbursement::intend(
            DisbursementId::generate(1, 1),
            Money::pence(2_500_000),
            "test_bank_strong",
            NOW,
        )
    }

    #[test]
    fn a_claimed_disbursement_cannot_be_cancelled_and_a_cancelled_one_cannot_be_claimed() {
        let due = intent();
        assert!(!due.committed());
        let sending = due.claim(NOW).unwrap();
        assert!(sending.committed());
        assert_eq!(sending.cancel(NOW), Err(WrongState));
        let cancelled = due.cancel(NOW).unwrap();
        assert_eq!(cancelled.claim(NOW + RESEND_AFTER), Err(WrongState));
        assert!(!cancelled.open());
    }

    #[test]
    fn a_claim_is_taken_again_only_after_its_worker_has_been_silent_for_a_minute() {
        let sending = intent().claim(NOW).unwrap();
        assert_eq!(sending.claim(NOW + Duration::seconds(59)), Err(WrongState));
        let again = sending.claim(NOW + RESEND_AFTER).unwrap();
        assert_eq!(
            again.state,
            State::Sending {
                claimed_at: NOW + RESEND_AFTER
            }
        );
        assert_eq!(again.id, sending.id, "the same idempotency key");
    }

    #[test]
    fn only_a_sent_disbursement_settles_or_is_rejected_and_then_it_is_closed() {
        let due = intent();
        assert_eq!(due.settle("p", NOW), Err(WrongState));
        assert_eq!(due.reject("r", NOW), Err(WrongState));
        let sending = due.claim(NOW).unwrap();
        let settled = sending.settle("rail-1", NOW).unwrap();
        assert!(settled.committed() && !settled.open());
        assert_eq!(settled.next_at(NOW, Duration::minutes(5)), None);
        assert_eq!(settled.settle("rail-2", NOW), Err(WrongState));
        let rejected = sending.reject("account_closed", NOW).unwrap();
        assert!(!rejected.committed() && !rejected.open());
        assert_eq!(rejected.cancel(NOW), Ok(rejected.clone()));
    }

    #[test]
    fn the_ledger_holds_the_drawdown_pending_while_sent_and_closes_it_on_the_rails_answer() {
        let due = intent();
        assert_eq!(due.pending_transfer(), None, "nothing is sent yet");
        let account = due.account_id().unwrap();
        assert_eq!(&account.as_str()[4..], &due.id.as_str()[4..]);
        let sending = due.claim(NOW).unwrap();
        let pending = sending.pending_transfer().unwrap();
        assert_eq!(pending.phase(), &Phase::Pending);
        assert_eq!(pending.amount(), due.amount);
        assert_eq!(sending.closing_transfer(), None);
        for (closed, posted) in [
            (sending.settle("rail-1", NOW).unwrap(), true),
            (sending.reject("account_closed", NOW).unwrap(), false),
        ] {
            let mut book = Book::default();
            book.apply(&pending).unwrap();
            book.apply(&closed.closing_transfer().unwrap()).unwrap();
            let principal = book.position(&account).unwrap().principal;
            assert_eq!(principal, if posted { due.amount } else { Money::ZERO });
        }
    }

    #[test]
    fn it_is_due_after_the_pre_funding_wait_and_a_claim_is_looked_at_again_a_minute_on() {
        let due = intent();
        let five = Duration::minutes(5);
        assert_eq!(due.next_at(NOW, five), Some(NOW + five));
        let later = NOW + Duration::minutes(6);
        let sending = due.claim(later).unwrap();
        assert_eq!(sending.next_at(NOW, five), Some(later + RESEND_AFTER));
    }
}
