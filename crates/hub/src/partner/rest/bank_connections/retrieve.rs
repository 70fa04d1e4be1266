use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::partner::scope::PartnerScope;

use crate::flows::connect_bank::retrieve as find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::bank_connection::BankConnectionView;

/// A bank connection of one of your applications: whether the applicant
/// has authorised at their bank and the account was read.
#[utoipa::path(get, operation_id = "getBankConnection", path = "/applications/{id}/bank_connections/{connection_id}", tag = "applications",
    security(("oauth2" = ["applications.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "app_…"), ("connection_id" = String, Path, description = "bcn_…")),
    responses((status = 200, body = BankConnectionView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such connection of this application of yours")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path((id, connection_id)): Path<(String, String)>,
) -> Result<Json<BankConnectionView>, PartnerError> {
    caller.require(PartnerScope::ApplicationsRead)?;
    let connection = find(&state.flows, &caller.tenant(), &id, &connection_id).await?;
    Ok(Json(BankConnectionView::new(
        &connection,
        caller.now(&state),
    )))
}
