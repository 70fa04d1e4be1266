//! The request fields payment links and schedules share, read the same way
//! with the same reasons.

use lendhub_domain::ids::{AccountId, HubId};
use lendhub_domain::money::Money;
use lendhub_domain::servicing::collection::MAX_AMOUNT_PENCE;
use lendhub_http::FieldIssue;
use serde_json::Value;

use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;
use lendhub_domain::servicing::account::{Account, AccountStatus};
use lendhub_domain::tenant::Tenant;

/// `account_id`: required, an `acc_…` id.
pub fn account_id(raw: Option<&str>, issues: &mut Vec<FieldIssue>) -> Option<AccountId> {
    match raw {
        None => {
            issues.push(FieldIssue::new("account_id", "required"));
            None
        }
        Some(raw) => AccountId::parse(raw).or_else(|| {
            issues.push(FieldIssue::new("account_id", "pattern"));
            None
        }),
    }
}

/// `amount_pence`: required, whole pence from 1 to `MAX_AMOUNT_PENCE` (a
/// decimal, a string or a number written with a fraction or an exponent is
/// refused: pence are whole). A number too large for `i64` is over the
/// bound, not of the wrong type.
pub fn amount(raw: Option<&Value>, issues: &mut Vec<FieldIssue>) -> Option<Money> {
    let too_large = |issues: &mut Vec<FieldIssue>| {
        issues.push(FieldIssue::new("amount_pence", "max_value").with_bound(MAX_AMOUNT_PENCE));
        None
    };
    match raw.map(|v| (v.as_i64(), v.is_u64())) {
        None => {
            issues.push(FieldIssue::new("amount_pence", "required"));
            None
        }
        Some((Some(p), _)) if (1..=MAX_AMOUNT_PENCE).contains(&p) => Some(Money::pence(p)),
        Some((Some(p), _)) if p > MAX_AMOUNT_PENCE => too_large(issues),
        Some((None, true)) => too_large(issues),
        Some((Some(_), _)) => {
            issues.push(FieldIssue::new("amount_pence", "min_value").with_bound(1));
            None
        }
        Some((None, false)) => {
            issues.push(FieldIssue::new("amount_pence", "integer_pence"));
            None
        }
    }
}

/// The caller's account a payment collects for; 404 for another's.
pub async fn account(
    state: &PartnerState,
    owner: &Tenant,
    id: &AccountId,
) -> Result<Account, PartnerError> {
    state
        .lending
        .hub_account(owner, id.as_str())
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
    let entries = state
        .servicing
        .ledger(&account.owner, account.id.as_str())
        .await?;
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
