//! An account's status kept in step with its ledger and the clock
//! (`Account::reviewed`): into arrears when an instalment falls due unpaid
//! (on the clock, through the sweep), out of arrears or settled when a
//! collection clears it (in the commit that posts the collection). Each
//! move emits `account.updated`, or `account.closed` when repaid in full.

use lendhub_domain::ledger::transfer::Transfer;
use lendhub_domain::money::Money;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::account::{Account, Moved};
use lendhub_domain::servicing::ledger;
use lendhub_store::{CommitError, EventWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use crate::flows::Context;
use crate::flows::events::event;
use crate::views::account::AccountView;

/// The writes that bring `account` in step with `transfers` (every one of
/// its loan's, including any about to be posted) at `now`; none if nothing
/// changes.
pub fn writes(
    account: &Account,
    transfers: &[Transfer],
    now: OffsetDateTime,
) -> Result<WriteSet, FlowError> {
    reviewed(account, transfers, now, false)
}

/// `writes`, for a collection about to be posted (among `transfers`):
/// when it leaves the account in credit and moves no status, the credit is
/// still announced (`account.updated`, whose balance shows `credit_pence`),
/// so money paid beyond what was owed never arrives unseen.
pub fn writes_for_collection(
    account: &Account,
    transfers: &[Transfer],
    now: OffsetDateTime,
) -> Result<WriteSet, FlowError> {
    let credit = ledger::balance(account, transfers, now)
        .ok_or_else(|| FlowError::Internal(format!("the balance of {} overflows", account.id)))?
        .credit;
    reviewed(account, transfers, now, credit > Money::ZERO)
}

fn reviewed(
    account: &Account,
    transfers: &[Transfer],
    now: OffsetDateTime,
    announce: bool,
) -> Result<WriteSet, FlowError> {
    let mut writes = WriteSet::default();
    let Some((next, moved)) = account.reviewed(transfers, now) else {
        return Err(FlowError::Internal(format!(
            "the balance of {} overflows",
            account.id
        )));
    };
    let kind = match moved {
        Some(Moved::Updated) => Some(EventType::AccountUpdated),
        Some(Moved::Settled) => Some(EventType::AccountClosed),
        None if announce => Some(EventType::AccountUpdated),
        None => None,
    };
    if let Some(kind) = kind {
        let view = AccountView::new(&next, transfers, now)?;
        let announced = event(&next.owner, kind, &view, now)?;
        writes.push(EventWrite::InsertEvent(announced));
    }
    if next.status != account.status || next.next_review != account.next_review {
        writes.push(LendingWrite::UpdateAccount {
            account: next,
            from: account.status,
        });
    }
    Ok(writes)
}

/// The clock's look at an account (the sweep): `Ok(false)` if nothing
/// changed or another instance moved it first.
pub async fn review(
    cx: &Context,
    account: &Account,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let transfers = cx.ledger.loan_transfers(&account.id).await?;
    let writes = writes(account, &transfers, now)?;
    if writes.writes.is_empty() {
        return Ok(false);
    }
    match cx.units.commit(writes).await {
        Ok(()) => Ok(true),
        Err(CommitError::Conflict) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
