//! A sub-account's payout account changed (`POST /sub-accounts/{id}`): the
//! account its payouts are paid to from now on, and its failed payouts
//! issued again to it, due at once, in the same commit. A payout the
//! receiving bank refused (or that had nowhere to go) is still owed on the
//! ledger; a new account is what lets the sweep send it again, under a
//! new end-to-end id (`PayoutRecord::reissue`).

use lendhub_domain::ids::{HubId, SubAccountId};
use lendhub_domain::partner::sub_account::{self, AccountRequest, SubAccount};
use lendhub_domain::tenant::Tenant;
use lendhub_store::{CommercialWrite, WriteSet};
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
    for failed in cx.commercial.failed_payouts(owner, &id).await? {
        if let Some(again) = failed.reissue(now) {
            tracing::info!(payout = %again.id, attempt = again.attempt, "a failed payout is issued again to a new account");
            writes.push(CommercialWrite::MovePayout(again));
        }
    }
    Ok((changed, writes))
}
