use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::ids::{HubId, SubAccountId};
use lendhub_domain::partner::scope::PartnerScope;

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::sub_account::SubAccountView;

/// A sub-account of yours (beta).
#[utoipa::path(get, operation_id = "getSubAccount", path = "/sub-accounts/{id}", tag = "sub-accounts",
    security(("oauth2" = ["accounts.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "sub_…")),
    responses((status = 200, body = SubAccountView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such sub-account of yours in this environment")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<SubAccountView>, PartnerError> {
    caller.require(PartnerScope::AccountsRead)?;
    let missing = PartnerError::NotFound("sub-account");
    let Some(id) = SubAccountId::parse(&id) else {
        return Err(missing);
    };
    let sub = state
        .commercial
        .sub_account(&caller.tenant(), &id)
        .await?
        .ok_or(missing)?;
    Ok(Json(SubAccountView::new(&sub)))
}
