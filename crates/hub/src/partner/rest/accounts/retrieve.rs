use axum::Json;
use axum::extract::{Path, State};

use super::caller::AccountsCaller;
use crate::flows::accounts;
use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;
use crate::views::account::AccountView;

/// An account of yours with its balance now and its repayment schedule.
/// With a person's identity-provider token (`accounts.read`), an account
/// of their own company's.
#[utoipa::path(get, operation_id = "getAccount", path = "/accounts/{id}", tag = "accounts",
    security(("oauth2" = ["accounts.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "acc_…")),
    responses((status = 200, body = AccountView), (status = 401, description = "credentials; a person's token: unauthenticated, token_expired or token_revoked"),
        (status = 403, description = "insufficient_scope (accounts.read, for a partner or a person)"),
        (status = 404, description = "not_found: no such account of yours in this environment")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: AccountsCaller,
    Path(id): Path<String>,
) -> Result<Json<AccountView>, PartnerError> {
    let reader = caller.reader(&state);
    Ok(Json(accounts::retrieve(&state.flows, &reader, &id).await?))
}
