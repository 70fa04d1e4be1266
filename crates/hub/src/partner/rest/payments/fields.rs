//! The request fields payment links and schedules share, read the same way
//! with the same reasons.

use lendhub_domain::hub_ids::{AccountId, HubId};
use lendhub_domain::money::Money;
use lendhub_http::FieldIssue;
use serde_json::Value;

use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;
use lendhub_domain::servicing::Account;
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

/// `amount_pence`: required, whole pence above zero (a decimal, a string
/// or a float is refused: pence are whole).
pub fn amount(raw: Option<&Value>, issues: &mut Vec<FieldIssue>) -> Option<Money> {
    match raw.map(Value::as_i64) {
        None => {
            issues.push(FieldIssue::new("amount_pence", "required"));
            None
        }
        Some(Some(p)) if p > 0 => Some(Money::pence(p)),
        Some(Some(_)) => {
            issues.push(FieldIssue::new("amount_pence", "min_value").with_bound(1));
            None
        }
        Some(None) => {
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
