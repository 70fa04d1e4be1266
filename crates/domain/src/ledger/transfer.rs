//! A transfer: one money movement as balanced postings. A transfer cannot
//! be made unbalanced: its only constructor checks that the debits equal
//! the credits, to the penny, with checked arithmetic, and that no posting
//! is zero or negative (the side says which way money moves).
//!
//! Movements that wait on a rail are two-phase, as TigerBeetle's pending
//! transfers: a `Pending` transfer is recorded when the payment is sent
//! and counts only in pending balances; when the rail answers, a `Post`
//! (the same postings, now in the posted balances) or a `Void` (nothing
//! moves) closes it. Every other transfer is `Single`: posted at once.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::chart::LedgerAccount;
use crate::ids::AccountId;
use crate::money::Money;

/// Which side of an account a posting is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Debit,
    Credit,
}

/// One leg of a transfer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Posting {
    pub account: LedgerAccount,
    pub side: Side,
    /// Always positive.
    pub amount: Money,
}

impl Posting {
    pub fn debit(account: LedgerAccount, amount: Money) -> Self {
        Self {
            account,
            side: Side::Debit,
            amount,
        }
    }

    pub fn credit(account: LedgerAccount, amount: Money) -> Self {
        Self {
            account,
            side: Side::Credit,
            amount,
        }
    }
}

/// Where a transfer stands in the two phases.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// Posted at once.
    Single,
    /// Reserved: sent to a rail that has not answered.
    Pending,
    /// The rail confirmed the pending transfer `pending`.
    Post { pending: String },
    /// The rail refused the pending transfer `pending`: nothing moved.
    Void { pending: String },
}

/// What a transfer records, for a statement and for the borrower's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Movement {
    Capital,
    Drawdown,
    Accrual,
    Fee,
    Collection,
    Return,
    Refund,
    WriteOff,
    RevenueShare,
    Payout,
    Unidentified,
}

/// Why a transfer could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotBalanced {
    #[error("a transfer needs postings")]
    Empty,
    #[error("a posting's amount must be positive")]
    NotPositive,
    #[error("debits {debits} and credits {credits} differ")]
    Differ { debits: Money, credits: Money },
    #[error("the amounts overflow")]
    Overflow,
}

/// A balanced money movement. Immutable once made; its fields are read
/// only, and one read back from storage is checked again as it is made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Unchecked")]
pub struct Transfer {
    id: String,
    movement: Movement,
    phase: Phase,
    postings: Vec<Posting>,
    #[serde(with = "time::serde::rfc3339")]
    at: OffsetDateTime,
    /// The end-to-end id the bank knows the money by, for a movement a
    /// rail carries: what reconciliation matches the bank's statement on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reference: Option<String>,
    /// The partner's payment (`pay_…`) a collection, its return or its
    /// refund moved money by: what the borrower's statement names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    payment: Option<String>,
}

/// A transfer as stored, before its balance is checked.
#[derive(Deserialize)]
struct Unchecked {
    id: String,
    movement: Movement,
    phase: Phase,
    postings: Vec<Posting>,
    #[serde(with = "time::serde::rfc3339")]
    at: OffsetDateTime,
    #[serde(default)]
    reference: Option<String>,
    #[serde(default)]
    payment: Option<String>,
}

impl TryFrom<Unchecked> for Transfer {
    type Error = NotBalanced;

    fn try_from(u: Unchecked) -> Result<Self, NotBalanced> {
        let made = Transfer::new(u.id, u.movement, u.phase, u.postings, u.at)?;
        Ok(Transfer {
            reference: u.reference,
            payment: u.payment,
            ..made
        })
    }
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Debit => "debit",
            Side::Credit => "credit",
        }
    }
}

impl Phase {
    pub fn as_str(&self) -> &'static str {
        match self {
            Phase::Single => "single",
            Phase::Pending => "pending",
            Phase::Post { .. } => "post",
            Phase::Void { .. } => "void",
        }
    }

    /// The pending transfer this one closes.
    pub fn closes(&self) -> Option<&str> {
        match self {
            Phase::Post { pending } | Phase::Void { pending } => Some(pending),
            Phase::Single | Phase::Pending => None,
        }
    }
}

impl Movement {
    pub fn as_str(self) -> &'static str {
        match self {
            Movement::Capital => "capital",
            Movement::Drawdown => "drawdown",
            Movement::Accrual => "accrual",
            Movement::Fee => "fee",
            Movement::Collection => "collection",
            Movement::Return => "return",
            Movement::Refund => "refund",
            Movement::WriteOff => "write_off",
            Movement::RevenueShare => "revenue_share",
            Movement::Payout => "payout",
            Movement::Unidentified => "unidentified",
        }
    }
}

impl Transfer {
    /// `postings` as one transfer, if they balance.
    pub fn new(
        id: impl Into<String>,
        movement: Movement,
        phase: Phase,
        postings: Vec<Posting>,
        at: OffsetDateTime,
    ) -> Result<Self, NotBalanced> {
        if postings.is_empty() {
            return Err(NotBalanced::Empty);
        }
        if postings.iter().any(|p| p.amount <= Money::ZERO) {
            return Err(NotBalanced::NotPositive);
        }
        let total = |side: Side| {
            Money::sum(postings.iter().filter(|p| p.side == side).map(|p| p.amount))
                .ok_or(NotBalanced::Overflow)
        };
        let (debits, credits) = (total(Side::Debit)?, total(Side::Credit)?);
        if debits != credits {
            return Err(NotBalanced::Differ { debits, credits });
        }
        Ok(Self {
            id: id.into(),
            movement,
            phase,
            postings,
            at,
            reference: None,
            payment: None,
        })
    }

    /// The transfer, known at the bank by the end-to-end id `reference`
    /// (its post or void inherits it).
    pub fn known_at_bank_as(self, reference: impl Into<String>) -> Self {
        Self {
            reference: Some(reference.into()),
            ..self
        }
    }

    /// The transfer, of the partner's payment `payment` (its post or void
    /// inherits it).
    pub fn for_payment(self, payment: impl Into<String>) -> Self {
        Self {
            payment: Some(payment.into()),
            ..self
        }
    }

    /// The loan whose accounts the transfer touches, if any (a transfer
    /// touches at most one).
    pub fn loan(&self) -> Option<&AccountId> {
        self.postings.iter().find_map(|p| match &p.account {
            LedgerAccount::Loan(id, _) => Some(id),
            LedgerAccount::Lender(_) => None,
        })
    }

    /// The partner's payment the transfer moved money by, if any.
    pub fn payment(&self) -> Option<&str> {
        self.payment.as_deref()
    }

    /// The end-to-end id the bank knows the money by, if a rail carries it.
    pub fn reference(&self) -> Option<&str> {
        self.reference.as_deref()
    }

    /// The pending transfer confirmed: the same postings, posted.
    pub fn post(&self, id: impl Into<String>, at: OffsetDateTime) -> Option<Self> {
        self.close(
            id,
            Phase::Post {
                pending: self.id.clone(),
            },
            at,
        )
    }

    /// The pending transfer refused: nothing moves.
    pub fn void(&self, id: impl Into<String>, at: OffsetDateTime) -> Option<Self> {
        self.close(
            id,
            Phase::Void {
                pending: self.id.clone(),
            },
            at,
        )
    }

    fn close(&self, id: impl Into<String>, phase: Phase, at: OffsetDateTime) -> Option<Self> {
        (self.phase == Phase::Pending).then(|| Self {
            id: id.into(),
            phase,
            at,
            ..self.clone()
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn movement(&self) -> Movement {
        self.movement
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    pub fn postings(&self) -> &[Posting] {
        &self.postings
    }

    pub fn at(&self) -> OffsetDateTime {
        self.at
    }

    /// The amount that moves: its debits (equal to its credits).
    pub fn amount(&self) -> Money {
        Money::sum(
            self.postings
                .iter()
                .filter(|p| p.side == Side::Debit)
                .map(|p| p.amount),
        )
        .unwrap_or(Money::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::chart::Lender;
    use time::macros::datetime;

    const AT: OffsetDateTime = datetime!(2026-11-30 12:00 UTC);

    fn lender(l: Lender) -> LedgerAccount {
        LedgerAccount::Lender(l)
    }

    #[test]
    fn a_transfer_is_made_only_when_its_postings_balance() {
        let pence = Money::pence;
        assert_eq!(
            Transfer::new("t", Movement::Capital, Phase::Single, vec![], AT),
            Err(NotBalanced::Empty)
        );
        assert_eq!(
            Transfer::new(
                "t",
                Movement::Capital,
                Phase::Single,
                vec![
                    Posting::debit(lender(Lender::Funding), pence(100)),
                    Posting::credit(lender(Lender::Capital), pence(99)),
                ],
                AT
            ),
            Err(NotBalanced::Differ {
                debits: pence(100),
                credits: pence(99)
            })
        );
        assert_eq!(
            Transfer::new(
                "t",
                Movement::Capital,
                Phase::Single,
                vec![
                    Posting::debit(lender(Lender::Funding), pence(0)),
                    Posting::credit(lender(Lender::Capital), pence(0)),
                ],
                AT
            ),
            Err(NotBalanced::NotPositive)
        );
        assert_eq!(
            Transfer::new(
                "t",
                Movement::Capital,
                Phase::Single,
                vec![
                    Posting::debit(lender(Lender::Funding), pence(i64::MAX)),
                    Posting::debit(lender(Lender::Suspense), pence(1)),
                    Posting::credit(lender(Lender::Capital), pence(1)),
                ],
                AT
            ),
            Err(NotBalanced::Overflow)
        );
    }

    #[test]
    fn only_a_pending_transfer_is_posted_or_voided() {
        let pending = Transfer::new(
            "p",
            Movement::Payout,
            Phase::Pending,
            vec![
                Posting::debit(lender(Lender::RevenueSharePayable), Money::pence(500)),
                Posting::credit(lender(Lender::Funding), Money::pence(500)),
            ],
            AT,
        )
        .unwrap();
        let posted = pending.post("q", AT).unwrap();
        assert_eq!(
            posted.phase(),
            &Phase::Post {
                pending: "p".into()
            }
        );
        assert_eq!(posted.postings(), pending.postings());
        assert_eq!(posted.post("r", AT), None);
        assert_eq!(posted.void("r", AT), None);
        assert!(pending.void("v", AT).is_some());
        assert_eq!(pending.amount(), Money::pence(500));
        let json = serde_json::to_value(&posted).unwrap();
        assert_eq!(json["movement"], posted.movement().as_str());
        assert_eq!(json["phase"]["phase"], posted.phase().as_str());
        assert_eq!(
            serde_json::from_value::<Transfer>(json.clone()).unwrap(),
            posted
        );
        let mut unbalanced = json;
        unbalanced["postings"][0]["amount"] = 499.into();
        assert!(
            serde_json::from_value::<Transfer>(unbalanced).is_err(),
            "a stored transfer is checked again as it is read"
        );
    }
}
