use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::ledger;
use lendhub_domain::scope::PartnerScope;

use super::{AccountView, find};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;

/// An account of yours with its balance now and its repayment schedule.
#[utoipa::path(get, operation_id = "getAccount", path = "/accounts/{id}", tag = "accounts",
    security(("oauth2" = ["accounts.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "acc_…")),
    responses((status = 200, body = AccountView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such account of yours in this environment")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<AccountView>, PartnerError> {
    caller.require(PartnerScope::AccountsRead)?;
    let (account, entries) = find(&state, &caller.tenant(), &id).await?;
    let now = caller.now(&state);
    Ok(Json(
        AccountView::new(&account, &entries, now)?.with_schedule(&ledger::schedule(&account)),
    ))
}
