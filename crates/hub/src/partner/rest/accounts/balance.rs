use axum::Json;
use axum::extract::{Path, State};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::caller::AccountsCaller;
use crate::flows::accounts;
use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;
use crate::views::account::BalanceView;

/// An account's balance at a moment.
#[derive(Serialize, ToSchema)]
pub struct BalanceAnswer {
    #[schema(example = "balance")]
    object: &'static str,
    account_id: String,
    #[serde(flatten)]
    balance: BalanceView,
    /// The moment it was derived at, on your environment's clock.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    as_of: OffsetDateTime,
}

/// The balance object only: principal outstanding, interest accrued,
/// arrears and the payoff figure, derived from the ledger now. With a
/// person's identity-provider token (`accounts.read`), of an account of
/// their own company's.
#[utoipa::path(get, operation_id = "getAccountBalance", path = "/accounts/{id}/balance", tag = "accounts",
    security(("oauth2" = ["accounts.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "acc_…")),
    responses((status = 200, body = BalanceAnswer), (status = 401, description = "credentials; a person's token: unauthenticated, token_expired or token_revoked"),
        (status = 403, description = "insufficient_scope (accounts.read, for a partner or a person)"),
        (status = 404, description = "not_found: no such account of yours in this environment")))]
pub async fn balance(
    State(state): State<PartnerState>,
    caller: AccountsCaller,
    Path(id): Path<String>,
) -> Result<Json<BalanceAnswer>, PartnerError> {
    let read = accounts::read(&state.flows, &caller.reader(&state), &id).await?;
    let now = read.now;
    Ok(Json(BalanceAnswer {
        object: "balance",
        account_id: id,
        balance: BalanceView::new(&read.account, &read.transfers, now)?,
        as_of: now,
    }))
}
