use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::partner::scope::PartnerScope;

use crate::flows::lending::find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::decision::DecisionView;

/// The decision on an application: 404 `not_found` until the engine has
/// resolved it.
#[utoipa::path(get, operation_id = "getApplicationDecision", path = "/applications/{id}/decision", tag = "decisions",
    security(("oauth2" = ["decisions.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "app_…")),
    responses((status = 200, body = DecisionView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such application, or not decided yet")))]
pub async fn for_application(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<DecisionView>, PartnerError> {
    caller.require(PartnerScope::DecisionsRead)?;
    let owner = caller.tenant();
    let application = find(&state.flows, &owner, &id).await?;
    let undecided = PartnerError::NotFound("decision (the application is not decided yet)");
    let decision_id = application.decision_id.ok_or(undecided)?;
    let decision = state
        .lending
        .hub_decision(&owner, &decision_id)
        .await?
        .ok_or(PartnerError::NotFound("decision"))?;
    Ok(Json(DecisionView::new(&decision)))
}
