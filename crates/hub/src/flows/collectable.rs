//! What payment links and schedules ask of the account they collect for,
//! once their fields are checked (`servicing::link_request`,
//! `servicing::schedule_request`): that it is the caller's, still owes, and
//! owes at least what a link would collect.

use lendhub_domain::ids::AccountId;
use lendhub_domain::money::Money;

use lendhub_domain::servicing::account::{Account, AccountStatus};
use lendhub_domain::tenant::Tenant;

use crate::flows::Context;
use crate::flows::error::FlowError;

/// The caller's account a payment collects for; 404 for another's.
pub async fn account(cx: &Context, owner: &Tenant, id: &AccountId) -> Result<Account, FlowError> {
    cx.lending
        .hub_account(owner, id)
        .await?
        .ok_or(FlowError::NotFound("account"))
}

/// A settled or closed account owes nothing: no link or schedule collects
/// for it (409).
pub fn refuse_finished(account: &Account) -> Result<(), FlowError> {
    if matches!(
        account.status,
        AccountStatus::Settled | AccountStatus::Closed
    ) {
        return Err(FlowError::Conflict(
            "the account is settled or closed: there is nothing to collect",
        ));
    }
    Ok(())
}

/// What a new payment link on `account` may collect at most: its payoff at
/// `now`, derived from its ledger. A settled or closed account owes nothing
/// and takes no link (409), nor does an amount above the payoff: the money
/// would have nowhere to go but a credit (docs/decisions.md, "Overpayment").
pub async fn refuse_overpayment(
    cx: &Context,
    account: &Account,
    amount: Money,
    now: time::OffsetDateTime,
) -> Result<(), FlowError> {
    refuse_finished(account)?;
    let transfers = cx.ledger.loan_transfers(&account.id).await?;
    let balance = lendhub_domain::servicing::ledger::balance(account, &transfers, now)
        .ok_or_else(|| FlowError::Internal(format!("the balance of {} overflows", account.id)))?;
    if amount > balance.payoff {
        return Err(FlowError::Conflict(
            "amount_pence is more than the account's payoff_pence: a link may collect at most what settles the account",
        ));
    }
    Ok(())
}
