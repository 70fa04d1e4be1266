use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::ids::{DecisionId, HubId};
use lendhub_domain::partner::scope::PartnerScope;

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::decision::DecisionView;

/// A decision of yours, in this environment.
#[utoipa::path(get, operation_id = "getDecision", path = "/decisions/{id}", tag = "decisions",
    security(("oauth2" = ["decisions.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "dec_…")),
    responses((status = 200, body = DecisionView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"), (status = 404, description = "not_found")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<DecisionView>, PartnerError> {
    caller.require(PartnerScope::DecisionsRead)?;
    let missing = PartnerError::NotFound("decision");
    let Some(id) = DecisionId::parse(&id) else {
        return Err(missing);
    };
    let decision = state
        .lending
        .hub_decision(&caller.tenant(), &id)
        .await?
        .ok_or(missing)?;
    Ok(Json(DecisionView::new(&decision)))
}
