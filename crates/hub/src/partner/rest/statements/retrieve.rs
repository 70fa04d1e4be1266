use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::billing::statement::Statement;
use lendhub_domain::ids::{HubId, StatementId};
use lendhub_domain::partner::scope::PartnerScope;

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::statement::StatementView;

/// The caller's statement `id`, or 404.
pub(super) async fn find(
    state: &PartnerState,
    caller: &RestCaller,
    id: &str,
) -> Result<Statement, PartnerError> {
    caller.require(PartnerScope::BillingRead)?;
    let missing = PartnerError::NotFound("statement");
    let Some(id) = StatementId::parse(id) else {
        return Err(missing);
    };
    state
        .commercial
        .statement(&caller.tenant(), &id)
        .await?
        .ok_or(missing)
}

/// A statement of yours.
#[utoipa::path(get, operation_id = "getStatement", path = "/statements/{id}", tag = "billing",
    security(("oauth2" = ["billing.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "pst_…")),
    responses((status = 200, body = StatementView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such statement of yours in this environment")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<StatementView>, PartnerError> {
    let statement = find(&state, &caller, &id).await?;
    Ok(Json(StatementView::new(&statement)))
}
