//! One loan's part of the ledger: its transfers replayed into a book, so a
//! flow can read what the loan owes and holds, and how much interest has
//! been posted, before it adds a movement.

use time::OffsetDateTime;

use super::book::{Book, Position, Refused};
use super::chart::{LedgerAccount, Loan};
use super::movements;
use super::transfer::{Movement, NotBalanced, Phase, Side, Transfer};
use crate::ids::AccountId;
use crate::money::Money;

/// A loan's transfers, applied.
#[derive(Clone, Debug)]
pub struct LoanLedger {
    loan: AccountId,
    book: Book,
    /// Interest posted by accruals over the loan's life.
    accrued: Money,
}

impl LoanLedger {
    /// `transfers` (every one touching the loan, in any order) applied:
    /// those that open or post at once first, then those that close a
    /// pending one, so a close made in the same millisecond as its pending
    /// transfer still finds it.
    pub fn of(loan: &AccountId, transfers: &[Transfer]) -> Result<Self, Refused> {
        let mut ledger = Self {
            loan: loan.clone(),
            book: Book::default(),
            accrued: Money::ZERO,
        };
        let closes = |t: &&Transfer| t.phase().closes().is_some();
        for t in transfers.iter().filter(|t| !closes(t)) {
            ledger.apply(t)?;
        }
        for t in transfers.iter().filter(closes) {
            ledger.apply(t)?;
        }
        Ok(ledger)
    }

    /// Adds `transfer`, as its commit will.
    pub fn apply(&mut self, transfer: &Transfer) -> Result<(), Refused> {
        self.book.apply(transfer)?;
        if transfer.movement() == Movement::Accrual {
            let interest = LedgerAccount::Loan(self.loan.clone(), Loan::Interest);
            let charged = transfer
                .postings()
                .iter()
                .filter(|p| p.account == interest && p.side == Side::Debit)
                .map(|p| p.amount);
            self.accrued = Money::sum(std::iter::once(self.accrued).chain(charged))
                .ok_or(Refused::Overflow)?;
        }
        Ok(())
    }

    /// What the loan owes and holds, on its posted transfers.
    pub fn position(&self) -> Option<Position> {
        self.book.position(&self.loan)
    }

    /// What a new collection may be set against: the position once every
    /// pending collection and refund lands.
    pub fn available(&self) -> Option<Position> {
        self.book.position_available(&self.loan)
    }

    /// Interest posted by accruals so far.
    pub fn accrued(&self) -> Money {
        self.accrued
    }

    /// The accrual that brings the interest posted up to `charged` (every
    /// penny the loan's interest terms have charged by `at`), if any is
    /// missing. Its id names the loan and the total it brings the interest
    /// to, so two instances posting the same accrual make the same
    /// transfer, and the database takes only one.
    pub fn accrual_to(
        &self,
        charged: Money,
        at: OffsetDateTime,
    ) -> Result<Option<Transfer>, NotBalanced> {
        let Some(missing) = charged.checked_sub(self.accrued) else {
            return Err(NotBalanced::Overflow);
        };
        if missing <= Money::ZERO {
            return Ok(None);
        }
        let id = format!("{}.interest.{}", self.loan, charged.as_pence());
        movements::accrual(&id, &self.loan, missing, at).map(Some)
    }
}

/// Whether `transfer` is one still waiting for its rail in `transfers`
/// (pending, and closed by none of them).
pub fn is_open(transfer: &Transfer, transfers: &[Transfer]) -> bool {
    transfer.phase() == &Phase::Pending
        && !transfers
            .iter()
            .any(|t| t.phase().closes() == Some(transfer.id()))
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::ids::HubId;

    const AT: OffsetDateTime = datetime!(2026-11-30 12:00 UTC);

    fn loan() -> AccountId {
        AccountId::generate(1, 7)
    }

    #[test]
    fn a_close_in_the_same_millisecond_as_its_pending_transfer_is_applied_after_it() {
        let drawdown = movements::drawdown("dsb_1", &loan(), Money::pence(100_000), AT).unwrap();
        let posted = drawdown.post("dsb_1.settled", AT).unwrap();
        let ledger = LoanLedger::of(&loan(), &[posted, drawdown]).unwrap();
        assert_eq!(ledger.position().unwrap().principal, Money::pence(100_000));
    }

    #[test]
    fn an_accrual_brings_the_posted_interest_up_to_what_was_charged_once() {
        let drawdown = movements::drawdown("dsb_1", &loan(), Money::pence(100_000), AT).unwrap();
        let posted = drawdown.post("dsb_1.settled", AT).unwrap();
        let mut ledger = LoanLedger::of(&loan(), &[drawdown, posted]).unwrap();
        let first = ledger.accrual_to(Money::pence(250), AT).unwrap().unwrap();
        assert_eq!(first.amount(), Money::pence(250));
        ledger.apply(&first).unwrap();
        let second = ledger.accrual_to(Money::pence(400), AT).unwrap().unwrap();
        assert_eq!(second.amount(), Money::pence(150));
        assert_ne!(first.id(), second.id());
        ledger.apply(&second).unwrap();
        assert_eq!(ledger.accrued(), Money::pence(400));
        assert!(ledger.accrual_to(Money::pence(400), AT).unwrap().is_none());
        assert_eq!(ledger.position().unwrap().interest, Money::pence(400));
    }

    #[test]
    fn a_pending_collection_is_open_until_closed() {
        let owed = Position {
            principal: Money::pence(1_000),
            ..Position::default()
        };
        let pending =
            movements::collection("pay_1.2", &loan(), Money::pence(500), &owed, AT).unwrap();
        assert!(is_open(&pending, std::slice::from_ref(&pending)));
        let voided = pending.void("pay_1.2.failed", AT).unwrap();
        assert!(!is_open(&pending, &[pending.clone(), voided]));
    }
}
