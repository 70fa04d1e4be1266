//! The ledger follows a collection's payment (docs/guide/src/ledger.md). When the
//! payer's bank accepts the payment, the interest the loan has been charged
//! so far is posted and the payment is held pending, set against what the
//! loan owes less what other pending collections already take; when the
//! bank settles it the hold is posted, and when the payment fails it is
//! voided. Every commit of a payment's next version runs through here, so
//! no path that moves a payment can leave the ledger behind.

use lendhub_domain::ids::HubId;
use lendhub_domain::ledger::loan::LoanLedger;
use lendhub_domain::ledger::movements;
use lendhub_domain::ledger::transfer::Transfer;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::collection::{InLedger, Payment, PaymentStatus};
use lendhub_domain::servicing::ledger::interest_charged;
use lendhub_store::{LedgerStore, LedgerWrite, StoreError, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use crate::flows::Context;

fn internal(e: impl std::fmt::Display) -> FlowError {
    FlowError::Internal(e.to_string())
}

/// The ledger's writes for committing `next`, and `next`'s record of them.
pub(super) async fn follow(
    cx: &Context,
    next: &mut Payment,
    now: OffsetDateTime,
) -> Result<WriteSet, FlowError> {
    let mut writes = WriteSet::default();
    match (next.status, next.in_ledger.clone()) {
        (PaymentStatus::Processing | PaymentStatus::Paid, None) => {
            let account = account_of(cx, next).await?;
            let mut loan = loan_ledger(cx.ledger.as_ref(), &account, now, &mut writes)
                .await
                .map_err(|e| match e {
                    Replay::Store(e) => FlowError::from(e),
                    other => internal(other),
                })?;
            let owed = loan
                .available()
                .ok_or_else(|| internal("a loan's balances overflow"))?;
            let id = format!("{}.{}", next.id, next.version);
            let pending = movements::collection(&id, &account.id, next.amount, &owed, now)
                .map_err(internal)?
                .known_at_bank_as(next.id.as_str())
                .for_payment(next.id.as_str());
            loan.apply(&pending).map_err(internal)?;
            writes.push(LedgerWrite::Post(pending.clone()));
            let posted = next.status == PaymentStatus::Paid;
            if posted {
                writes.push(LedgerWrite::Post(settled(&pending, now)?));
            }
            next.in_ledger = Some(InLedger {
                transfer: pending,
                posted,
                refund: None,
            });
        }
        (PaymentStatus::Paid, Some(held)) if !held.posted => {
            writes.push(LedgerWrite::Post(settled(&held.transfer, now)?));
            next.in_ledger = Some(InLedger {
                posted: true,
                ..held
            });
        }
        (PaymentStatus::Failed | PaymentStatus::Pending, Some(held)) if !held.posted => {
            let voided = held
                .transfer
                .void(format!("{}.failed", held.transfer.id()), now)
                .ok_or_else(|| internal("a held collection is not pending"))?;
            writes.push(LedgerWrite::Post(voided));
            next.in_ledger = None;
        }
        _ => {}
    }
    Ok(writes)
}

fn settled(pending: &Transfer, now: OffsetDateTime) -> Result<Transfer, FlowError> {
    pending
        .post(format!("{}.settled", pending.id()), now)
        .ok_or_else(|| internal("a held collection is not pending"))
}

async fn account_of(cx: &Context, payment: &Payment) -> Result<Account, FlowError> {
    cx.lending
        .hub_account(&payment.owner, &payment.account_id)
        .await?
        .ok_or_else(|| internal(format!("payment {} names no account", payment.id)))
}

/// Why a loan's ledger could not be read as it stands today.
#[derive(Debug, thiserror::Error)]
pub enum Replay {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("an account's balance overflows")]
    Overflow,
    #[error("{0}")]
    Refused(String),
}

fn refused(e: impl std::fmt::Display) -> Replay {
    Replay::Refused(e.to_string())
}

/// `account`'s part of the ledger, with the interest its terms have
/// charged by `now` posted (the accrual pushed onto `writes`), so a
/// movement made next is set against what is owed today.
pub async fn loan_ledger(
    ledger: &dyn LedgerStore,
    account: &Account,
    now: OffsetDateTime,
    writes: &mut WriteSet,
) -> Result<LoanLedger, Replay> {
    let transfers = ledger.loan_transfers(&account.id).await?;
    let charged = interest_charged(account, &transfers, now).ok_or(Replay::Overflow)?;
    let mut loan = LoanLedger::of(&account.id, &transfers).map_err(refused)?;
    if let Some(accrual) = loan.accrual_to(charged, now).map_err(refused)? {
        loan.apply(&accrual).map_err(refused)?;
        writes.push(LedgerWrite::Post(accrual));
    }
    Ok(loan)
}

/// The transfers `writes` posts: what a review made before the commit must
/// count with those already stored.
pub(super) fn posted_by(writes: &WriteSet) -> impl Iterator<Item = &Transfer> {
    writes.writes.iter().filter_map(|w| match w {
        lendhub_store::Write::Ledger(LedgerWrite::Post(t)) => Some(t),
        _ => None,
    })
}
