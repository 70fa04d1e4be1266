use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::scope::PartnerScope;

use lendhub_domain::hub_ids::HubId;

use super::{ApplicationView, find};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::decisions::DecisionView;
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
) -> Result<Json<ApplicationView>, PartnerError> {
    caller.require(PartnerScope::ApplicationsRead)?;
    let owner = caller.tenant();
    let application = find(&state, &owner, &id).await?;
    let mut view = ApplicationView::new(&application, &state);
    if let Some(decision_id) = &application.decision_id
        && let Some(decision) = state
            .lending
            .hub_decision(&owner, decision_id.as_str())
            .await?
    {
        view = view.with_decision(DecisionView::new(&decision));
    }
    Ok(Json(view))
}
