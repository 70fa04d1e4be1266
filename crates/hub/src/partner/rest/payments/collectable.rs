//! What payment links and schedules ask of the account they collect for,
//! once their fields are checked (`servicing::link_request`,
//! `servicing::schedule_request`): that it is the caller's, still owes, and
//! owes at least what a link would collect.

use lendhub_domain::ids::AccountId;
use lendhub_domain::money::Money;

use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;
use lendhub_domain::servicing::account::{Account, AccountStatus};
use lendhub_domain::tenant::Tenant;

/// The caller's account a payment collects for; 404 for another's.
pub async fn account(
    state: &PartnerState,
    owner: &Tenant,
    id: &AccountId,
) -> Result<Account, PartnerError> {
    state
        .lending
        .hub_account(owner, id)
        .await?
        .ok_or(PartnerError::NotFound("account"))
}

/// A settled or closed account owes nothing: no link or schedule collects
/// for it (409).
pub fn refuse_finished(account: &Account) -> Result<(), PartnerError> {
    if matches!(
        account.status,
        AccountStatus::Settled | AccountStatus::Closed
    ) {
        return Err(PartnerError::Conflict(
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
    state: &PartnerState,
    account: &Account,
    amount: Money,
    now: time::OffsetDateTime,
) -> Result<(), PartnerError> {
    refuse_finished(account)?;
    let entries = state.servicing.ledger(&account.owner, &account.id).await?;
    let balance =
        lendhub_domain::servicing::ledger::balance(account, &entries, now).ok_or_else(|| {
            PartnerError::Internal(format!("the balance of {} overflows", account.id))
        })?;
    if amount > balance.payoff {
        return Err(PartnerError::Conflict(
            "amount_pence is more than the account's payoff_pence: a link may collect at most what settles the account",
        ));
    }
    Ok(())
}
