//! Balances derived from transfers: each ledger account's posted debits
//! and credits, what pending transfers hold, the trial balance, and a
//! loan's position (what the borrower owes, and any credit they hold).
//! Storage keeps the same totals beside the transfers, so a balance is
//! read without reading every posting; this is the rule both follow.

use std::collections::BTreeMap;

use serde::Serialize;

use super::chart::{LedgerAccount, Loan, Normal};
use super::transfer::{Phase, Side, Transfer};
use crate::ids::AccountId;
use crate::money::Money;

/// An account's debits and credits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub debits: Money,
    pub credits: Money,
}

impl Totals {
    fn add(&mut self, side: Side, amount: Money) -> Option<()> {
        let total = match side {
            Side::Debit => &mut self.debits,
            Side::Credit => &mut self.credits,
        };
        *total = total.checked_add(amount)?;
        Some(())
    }

    fn remove(&mut self, side: Side, amount: Money) -> Option<()> {
        let total = match side {
            Side::Debit => &mut self.debits,
            Side::Credit => &mut self.credits,
        };
        *total = total.checked_sub(amount)?;
        Some(())
    }

    /// The balance on the account's normal side: positive when it holds
    /// what its kind holds (an asset's debit balance, a liability's credit).
    pub fn balance(&self, normal: Normal) -> Option<Money> {
        match normal {
            Normal::Debit => self.debits.checked_sub(self.credits),
            Normal::Credit => self.credits.checked_sub(self.debits),
        }
    }
}

/// Why a transfer was not applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("transfer {0} was already applied")]
    Repeated(String),
    #[error("{0} closes no open pending transfer")]
    NoSuchPending(String),
    #[error("{0} does not repeat its pending transfer's postings")]
    NotItsPending(String),
    #[error("the totals overflow")]
    Overflow,
}

/// A loan as its postings show it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Position {
    pub principal: Money,
    pub interest: Money,
    pub fees: Money,
    /// Paid beyond what was owed: the borrower's, refundable.
    pub credit: Money,
}

impl Position {
    /// What settles the loan today.
    pub fn payoff(&self) -> Option<Money> {
        Money::sum([self.principal, self.interest, self.fees])
    }
}

/// One line of a trial balance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Line {
    pub account: LedgerAccount,
    pub debits: Money,
    pub credits: Money,
    /// On the account's normal side.
    pub balance: Money,
}

/// Every account's posted totals, and the totals of all of them, which a
/// balanced ledger makes equal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TrialBalance {
    pub lines: Vec<Line>,
    pub total_debits: Money,
    pub total_credits: Money,
}

impl TrialBalance {
    /// The trial balance of accounts' posted `totals`; `None` on overflow.
    pub fn of(totals: impl IntoIterator<Item = (LedgerAccount, Totals)>) -> Option<Self> {
        let mut lines = Vec::new();
        for (account, totals) in totals {
            lines.push(Line {
                balance: totals.balance(account.normal())?,
                account,
                debits: totals.debits,
                credits: totals.credits,
            });
        }
        Some(Self {
            total_debits: Money::sum(lines.iter().map(|l| l.debits))?,
            total_credits: Money::sum(lines.iter().map(|l| l.credits))?,
            lines,
        })
    }
}

/// The ledger's balances, as the transfers applied to it make them.
#[derive(Clone, Debug, Default)]
pub struct Book {
    posted: BTreeMap<LedgerAccount, Totals>,
    pending: BTreeMap<LedgerAccount, Totals>,
    open: BTreeMap<String, Transfer>,
    applied: std::collections::BTreeSet<String>,
}

impl Book {
    /// Applies `transfer`; a refused one changes nothing. Every total it
    /// moves is worked out before any is written, so applying costs what
    /// the transfer touches, not what the book holds.
    pub fn apply(&mut self, transfer: &Transfer) -> Result<(), Refused> {
        if self.applied.contains(transfer.id()) {
            return Err(Refused::Repeated(transfer.id().to_owned()));
        }
        let mut staged = Staged::default();
        let closes = match transfer.phase() {
            Phase::Single => {
                staged.add(self, Target::Posted, transfer)?;
                None
            }
            Phase::Pending => {
                staged.add(self, Target::Pending, transfer)?;
                None
            }
            Phase::Post { pending } | Phase::Void { pending } => {
                let open = self
                    .open
                    .get(pending)
                    .ok_or_else(|| Refused::NoSuchPending(transfer.id().to_owned()))?;
                if open.postings() != transfer.postings() {
                    return Err(Refused::NotItsPending(transfer.id().to_owned()));
                }
                staged.remove_pending(self, open)?;
                if matches!(transfer.phase(), Phase::Post { .. }) {
                    staged.add(self, Target::Posted, transfer)?;
                }
                Some(pending.clone())
            }
        };
        for ((target, account), totals) in staged.0 {
            match target {
                Target::Posted => self.posted.insert(account, totals),
                Target::Pending => self.pending.insert(account, totals),
            };
        }
        match closes {
            Some(pending) => {
                self.open.remove(&pending);
            }
            None if transfer.phase() == &Phase::Pending => {
                self.open.insert(transfer.id().to_owned(), transfer.clone());
            }
            None => {}
        }
        self.applied.insert(transfer.id().to_owned());
        Ok(())
    }

    /// `account`'s posted totals.
    pub fn posted(&self, account: &LedgerAccount) -> Totals {
        self.posted.get(account).copied().unwrap_or_default()
    }

    /// What pending transfers hold on `account`.
    pub fn pending(&self, account: &LedgerAccount) -> Totals {
        self.pending.get(account).copied().unwrap_or_default()
    }

    /// The pending transfer `id`, while it waits for its rail.
    pub fn open(&self, id: &str) -> Option<&Transfer> {
        self.open.get(id)
    }

    /// `account`'s posted balance, less what pending transfers would take
    /// from it: what a new movement may still use.
    pub fn available(&self, account: &LedgerAccount) -> Option<Money> {
        let posted = self.posted(account).balance(account.normal())?;
        let pending = self.pending(account);
        let leaving = match account.normal() {
            Normal::Debit => pending.credits,
            Normal::Credit => pending.debits,
        };
        posted.checked_sub(leaving)
    }

    /// `loan` as its posted transfers show it.
    pub fn position(&self, loan: &AccountId) -> Option<Position> {
        let of = |part| self.posted(&LedgerAccount::Loan(loan.clone(), part));
        let balance =
            |part: Loan| of(part).balance(LedgerAccount::Loan(loan.clone(), part).normal());
        Some(Position {
            principal: balance(Loan::Principal)?,
            interest: balance(Loan::Interest)?,
            fees: balance(Loan::Fees)?,
            credit: balance(Loan::Credit)?,
        })
    }

    /// What `loan` owes and holds once every pending collection and
    /// refund lands: what a new one may be allocated against.
    pub fn position_available(&self, loan: &AccountId) -> Option<Position> {
        let of = |part| self.available(&LedgerAccount::Loan(loan.clone(), part));
        Some(Position {
            principal: of(Loan::Principal)?,
            interest: of(Loan::Interest)?,
            fees: of(Loan::Fees)?,
            credit: of(Loan::Credit)?,
        })
    }

    /// Every posted account's totals and balance, in name order.
    pub fn trial_balance(&self) -> Option<TrialBalance> {
        TrialBalance::of(self.posted.iter().map(|(a, t)| (a.clone(), *t)))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    Posted,
    Pending,
}

/// The totals a transfer being applied moves, before they are written.
#[derive(Default)]
struct Staged(BTreeMap<(Target, LedgerAccount), Totals>);

impl Staged {
    fn entry(&mut self, book: &Book, target: Target, account: &LedgerAccount) -> &mut Totals {
        self.0
            .entry((target, account.clone()))
            .or_insert_with(|| match target {
                Target::Posted => book.posted(account),
                Target::Pending => book.pending(account),
            })
    }

    fn add(&mut self, book: &Book, target: Target, transfer: &Transfer) -> Result<(), Refused> {
        for p in transfer.postings() {
            self.entry(book, target, &p.account)
                .add(p.side, p.amount)
                .ok_or(Refused::Overflow)?;
        }
        Ok(())
    }

    fn remove_pending(&mut self, book: &Book, transfer: &Transfer) -> Result<(), Refused> {
        for p in transfer.postings() {
            self.entry(book, Target::Pending, &p.account)
                .remove(p.side, p.amount)
                .ok_or(Refused::Overflow)?;
        }
        Ok(())
    }
}
