//! Each money movement's postings (docs/guide/src/ledger.md has them as a table).
//! Movements a rail carries — a drawdown, a collection, a refund, a
//! payout — are made `Pending` when the payment is sent, and posted or
//! voided by the rail's answer; the rest post at once.

use time::OffsetDateTime;

use super::book::Position;
use super::chart::{LedgerAccount, Lender, Loan};
use super::transfer::{Movement, NotBalanced, Phase, Posting, Side, Transfer};
use crate::ids::AccountId;
use crate::money::Money;

fn lender(l: Lender) -> LedgerAccount {
    LedgerAccount::Lender(l)
}

fn loan(id: &AccountId, part: Loan) -> LedgerAccount {
    LedgerAccount::Loan(id.clone(), part)
}

fn single(
    id: &str,
    movement: Movement,
    debit: LedgerAccount,
    credit: LedgerAccount,
    amount: Money,
    phase: Phase,
    at: OffsetDateTime,
) -> Result<Transfer, NotBalanced> {
    Transfer::new(
        id,
        movement,
        phase,
        vec![
            Posting::debit(debit, amount),
            Posting::credit(credit, amount),
        ],
        at,
    )
}

/// The lender puts money into its funding account.
pub fn capital(id: &str, amount: Money, at: OffsetDateTime) -> Result<Transfer, NotBalanced> {
    let (funding, capital) = (lender(Lender::Funding), lender(Lender::Capital));
    single(
        id,
        Movement::Capital,
        funding,
        capital,
        amount,
        Phase::Single,
        at,
    )
}

/// The principal sent to the borrower (pending until the rail settles it).
pub fn drawdown(
    id: &str,
    to: &AccountId,
    amount: Money,
    at: OffsetDateTime,
) -> Result<Transfer, NotBalanced> {
    let (principal, funding) = (loan(to, Loan::Principal), lender(Lender::Funding));
    single(
        id,
        Movement::Drawdown,
        principal,
        funding,
        amount,
        Phase::Pending,
        at,
    )
}

/// Interest accrued on `on`.
pub fn accrual(
    id: &str,
    on: &AccountId,
    amount: Money,
    at: OffsetDateTime,
) -> Result<Transfer, NotBalanced> {
    let (interest, income) = (loan(on, Loan::Interest), lender(Lender::InterestIncome));
    single(
        id,
        Movement::Accrual,
        interest,
        income,
        amount,
        Phase::Single,
        at,
    )
}

/// A fee charged to `on`.
pub fn fee(
    id: &str,
    on: &AccountId,
    amount: Money,
    at: OffsetDateTime,
) -> Result<Transfer, NotBalanced> {
    let (fees, income) = (loan(on, Loan::Fees), lender(Lender::FeeIncome));
    single(id, Movement::Fee, fees, income, amount, Phase::Single, at)
}

/// A collection from `from`'s borrower of `amount`, set against what
/// `owed` shows in the usual order (fees, then interest, then principal);
/// what is left over is the borrower's credit, never lost. Pending until
/// the payer's bank settles it.
pub fn collection(
    id: &str,
    from: &AccountId,
    amount: Money,
    owed: &Position,
    at: OffsetDateTime,
) -> Result<Transfer, NotBalanced> {
    let mut left = amount;
    let mut postings = vec![Posting::debit(lender(Lender::Collections), amount)];
    for (part, due) in [
        (Loan::Fees, owed.fees),
        (Loan::Interest, owed.interest),
        (Loan::Principal, owed.principal),
    ] {
        let taken = left.min(due.max(Money::ZERO));
        if taken > Money::ZERO {
            postings.push(Posting::credit(loan(from, part), taken));
            left = left.checked_sub(taken).ok_or(NotBalanced::Overflow)?;
        }
    }
    if left > Money::ZERO {
        postings.push(Posting::credit(loan(from, Loan::Credit), left));
    }
    Transfer::new(id, Movement::Collection, Phase::Pending, postings, at)
}

/// `transfer`'s postings with their sides swapped, as `movement`.
fn reversed(
    id: &str,
    movement: Movement,
    phase: Phase,
    transfer: &Transfer,
    at: OffsetDateTime,
) -> Result<Transfer, NotBalanced> {
    let postings = transfer
        .postings()
        .iter()
        .map(|p| Posting {
            side: match p.side {
                Side::Debit => Side::Credit,
                Side::Credit => Side::Debit,
            },
            ..p.clone()
        })
        .collect();
    Transfer::new(id, movement, phase, postings, at)
}

/// A settled collection returned by the payer's bank (a recall, a
/// chargeback): its postings reversed, posted at once.
pub fn returned(id: &str, settled: &Transfer, at: OffsetDateTime) -> Result<Transfer, NotBalanced> {
    let back = reversed(id, Movement::Return, Phase::Single, settled, at)?;
    Ok(of_payment(back, settled))
}

/// `transfer`, of the payment `of` moved money by.
fn of_payment(transfer: Transfer, of: &Transfer) -> Transfer {
    match of.payment() {
        Some(payment) => transfer.for_payment(payment),
        None => transfer,
    }
}

/// A settled collection paid back to the payer: what it paid off is owed
/// again, and the money leaves the funding account the payout rail pays
/// from — pending until the rail settles the refund.
pub fn refund_of(
    id: &str,
    collected: &Transfer,
    at: OffsetDateTime,
) -> Result<Transfer, NotBalanced> {
    let collections = lender(Lender::Collections);
    let postings = collected
        .postings()
        .iter()
        .map(|p| Posting {
            account: if p.account == collections {
                lender(Lender::Funding)
            } else {
                p.account.clone()
            },
            side: match p.side {
                Side::Debit => Side::Credit,
                Side::Credit => Side::Debit,
            },
            amount: p.amount,
        })
        .collect();
    let back = Transfer::new(id, Movement::Refund, Phase::Pending, postings, at)?;
    Ok(of_payment(back, collected))
}

/// The borrower's credit paid back to them from the funding account the
/// payout rail pays from (pending until the rail settles it).
pub fn refund(
    id: &str,
    to: &AccountId,
    amount: Money,
    at: OffsetDateTime,
) -> Result<Transfer, NotBalanced> {
    let (credit, funding) = (loan(to, Loan::Credit), lender(Lender::Funding));
    single(
        id,
        Movement::Refund,
        credit,
        funding,
        amount,
        Phase::Pending,
        at,
    )
}

/// What `owed` shows given up as unrecoverable.
pub fn write_off(
    id: &str,
    on: &AccountId,
    owed: &Position,
    at: OffsetDateTime,
) -> Result<Transfer, NotBalanced> {
    let total = owed.payoff().ok_or(NotBalanced::Overflow)?;
    let mut postings = vec![Posting::debit(lender(Lender::WriteOffs), total)];
    for (part, due) in [
        (Loan::Fees, owed.fees),
        (Loan::Interest, owed.interest),
        (Loan::Principal, owed.principal),
    ] {
        if due > Money::ZERO {
            postings.push(Posting::credit(loan(on, part), due));
        }
    }
    Transfer::new(id, Movement::WriteOff, Phase::Single, postings, at)
}

/// A partner's revenue share earned.
pub fn revenue_share(id: &str, amount: Money, at: OffsetDateTime) -> Result<Transfer, NotBalanced> {
    let (expense, payable) = (
        lender(Lender::RevenueShareExpense),
        lender(Lender::RevenueSharePayable),
    );
    single(
        id,
        Movement::RevenueShare,
        expense,
        payable,
        amount,
        Phase::Single,
        at,
    )
}

/// Revenue share paid out to partners (pending until the rail settles it).
pub fn payout(id: &str, amount: Money, at: OffsetDateTime) -> Result<Transfer, NotBalanced> {
    let (payable, funding) = (lender(Lender::RevenueSharePayable), lender(Lender::Funding));
    single(
        id,
        Movement::Payout,
        payable,
        funding,
        amount,
        Phase::Pending,
        at,
    )
}

/// Money that arrived in the collection account that nothing matched:
/// held in suspense until the reconciliation finds whose it is.
pub fn unidentified(id: &str, amount: Money, at: OffsetDateTime) -> Result<Transfer, NotBalanced> {
    let (collections, suspense) = (lender(Lender::Collections), lender(Lender::Suspense));
    single(
        id,
        Movement::Unidentified,
        collections,
        suspense,
        amount,
        Phase::Single,
        at,
    )
}
