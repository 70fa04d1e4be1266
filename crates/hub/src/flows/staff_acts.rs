//! The lender's staff acts on an account (`lendhub accounts …`): a hardship
//! arrangement (`forborne`, `account.updated`), its end (the account is
//! reviewed against its ledger, `account.updated`), a write-off (`closed`,
//! `account.closed`, and what the loan owes posted to the ledger's
//! write-offs). Each is kept on the account (`arrangements`: who, what,
//! why, when) and committed conditional on the status it was read in.

use lendhub_domain::clock::Clock;
use lendhub_domain::ids::{AccountId, HubId};
use lendhub_domain::ledger::movements;
use lendhub_domain::money::Money;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::sandbox::test_clock::ClientClock;
use lendhub_domain::servicing::account::{Account, StaffAct};
use lendhub_store::{CommitError, EventWrite, LedgerWrite, LendingWrite, Store, WriteSet};

use crate::flows::collection_ledger::loan_ledger;
use crate::flows::events::event;
use crate::views::account::AccountView;

#[derive(Debug, thiserror::Error)]
pub enum StaffError {
    #[error("no account {0}")]
    NotFound(String),
    #[error("{0}")]
    NotApplicable(String),
    #[error("the account changed meanwhile; run the command again")]
    Conflict,
    #[error("{0}")]
    Store(String),
}

/// `act` on account `id` by `by` for `note`, on its owner's clock.
pub async fn act(
    store: &dyn Store,
    clock: &dyn Clock,
    id: &str,
    act: StaffAct,
    by: &str,
    note: &str,
) -> Result<Account, StaffError> {
    let failed = |e: lendhub_store::StoreError| StaffError::Store(e.to_string());
    let missing = || StaffError::NotFound(id.to_owned());
    let account_id = AccountId::parse(id).ok_or_else(missing)?;
    let account = store
        .account_any_owner(&account_id)
        .await
        .map_err(failed)?
        .ok_or_else(missing)?;
    let now = ClientClock::new(store.clock_offset(&account.owner).await.map_err(failed)?)
        .now(clock.now());
    let acted = account
        .staff_act(act, by, note, now)
        .map_err(|e| StaffError::NotApplicable(e.to_string()))?;
    let mut transfers = store.loan_transfers(&account.id).await.map_err(failed)?;
    // Ending forbearance hands the account back to its ledger.
    let (next, kind) = match act {
        StaffAct::Forbear => (acted, EventType::AccountUpdated),
        StaffAct::WriteOff => (acted, EventType::AccountClosed),
        StaffAct::EndForbearance => {
            let (reviewed, _) = acted
                .reviewed(&transfers, now)
                .ok_or_else(|| StaffError::Store(format!("the balance of {id} overflows")))?;
            (reviewed, EventType::AccountUpdated)
        }
    };
    let mut writes = WriteSet::default();
    if act == StaffAct::WriteOff {
        // What the loan owes today (its interest posted to date), less
        // what collections in flight will take, is given up.
        let loan = loan_ledger(store, &account, now, &mut writes)
            .await
            .map_err(|e| StaffError::Store(e.to_string()))?;
        let owed = loan
            .available()
            .ok_or_else(|| StaffError::Store(format!("the balance of {id} overflows")))?;
        if owed.payoff().is_some_and(|p| p > Money::ZERO) {
            let written_off =
                movements::write_off(&format!("{id}.write_off"), &account.id, &owed, now)
                    .map_err(|e| StaffError::Store(e.to_string()))?;
            writes.push(LedgerWrite::Post(written_off));
        }
    }
    transfers.extend(crate::flows::collection_ledger::posted_by(&writes).cloned());
    let view =
        AccountView::new(&next, &transfers, now).map_err(|e| StaffError::Store(e.to_string()))?;
    let announced =
        event(&next.owner, kind, &view, now).map_err(|e| StaffError::Store(e.to_string()))?;
    writes
        .push(LendingWrite::UpdateAccount {
            account: next.clone(),
            from: account.status,
        })
        .push(EventWrite::InsertEvent(announced));
    match store.commit(writes).await {
        Ok(()) => Ok(next),
        Err(CommitError::Conflict) => Err(StaffError::Conflict),
        Err(e) => Err(StaffError::Store(e.to_string())),
    }
}
