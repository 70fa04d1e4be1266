use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::scope::PartnerScope;

use super::{ApplicationView, find, render};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;

/// An application of yours, in this environment.
#[utoipa::path(get, operation_id = "getApplication", path = "/applications/{id}", tag = "applications",
    security(("oauth2" = ["applications.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "app_…")),
    responses((status = 200, body = ApplicationView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such application of yours in this environment")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, PartnerError> {
    caller.require(PartnerScope::ApplicationsRead)?;
    let application = find(&state, &caller.tenant(), &id).await?;
    Ok(Json(render(&application, &state)?))
}
