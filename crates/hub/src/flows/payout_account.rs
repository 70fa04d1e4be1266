//! A payee's payout account changed: a sub-account's (`POST
//! /sub-accounts/{id}`), or the partner's own (the lender's operator, with
//! `lendhub billing payout-account`). The account its payouts are paid to
//! from now on, and its failed payouts issued again to it, due at once, in
//! the same commit. A payout the receiving bank refused (or that had
//! nowhere to go) is still owed on the ledger; a new account is what lets
//! the sweep send it again, under a new end-to-end id
//! (`PayoutRecord::reissue`).

use lendhub_domain::ids::{HubId, SubAccountId};
use lendhub_domain::partner::sub_account::{self, AccountRequest, PayoutAccount, SubAccount};
use lendhub_domain::tenant::Tenant;
use lendhub_store::{CommercialStore, CommercialWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use crate::flows::Context;

/// `owner`'s sub-account `raw_id` paid to `request` from `now`, with the
/// writes that change it and issue its failed payouts again.
pub async fn change(
    cx: &Context,
    owner: &Tenant,
    raw_id: &str,
    request: Option<&AccountRequest>,
    now: OffsetDateTime,
) -> Result<(SubAccount, WriteSet), FlowError> {
    let missing = || FlowError::NotFound("sub-account");
    let id = SubAccountId::parse(raw_id).ok_or_else(missing)?;
    let current = cx
        .commercial
        .sub_account(owner, &id)
        .await?
        .ok_or_else(missing)?;
    let account = sub_account::check_payout_account(request)?;
    let changed = SubAccount {
        payout_account: Some(account),
        ..current
    };
    let mut writes = WriteSet::default();
    writes.push(CommercialWrite::UpdateSubAccount(changed.clone()));
    reissue_failed(cx.commercial.as_ref(), owner, Some(&id), now, &mut writes).await?;
    Ok((changed, writes))
}

/// The partner `owner` paid its own remittances at `request` from `now`,
/// with the writes that record it and issue its failed remittances again.
pub async fn change_partners(
    commercial: &dyn CommercialStore,
    owner: &Tenant,
    request: &AccountRequest,
    now: OffsetDateTime,
) -> Result<(PayoutAccount, WriteSet), FlowError> {
    let account = sub_account::check_payout_account(Some(request))?;
    let mut writes = WriteSet::default();
    writes.push(CommercialWrite::SetPartnerPayoutAccount {
        owner: owner.clone(),
        account: account.clone(),
        at: now,
    });
    reissue_failed(commercial, owner, None, now, &mut writes).await?;
    Ok((account, writes))
}

async fn reissue_failed(
    commercial: &dyn CommercialStore,
    owner: &Tenant,
    payee: Option<&SubAccountId>,
    now: OffsetDateTime,
    writes: &mut WriteSet,
) -> Result<(), FlowError> {
    for failed in commercial.failed_payouts(owner, payee).await? {
        if let Some(again) = failed.reissue(now) {
            tracing::info!(payout = %again.id, attempt = again.attempt, "a failed payout is issued again to a new account");
            writes.push(CommercialWrite::MovePayout(again));
        }
    }
    Ok(())
}
