use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;

use lendhub_domain::ids::{ApplicationId, HubId};

use crate::flows::lending::find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::events::json_response;
use crate::partner::state::PartnerState;
use crate::views::application::ApplicationView;
use crate::views::decision::DecisionView;

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
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::ApplicationsRead)?;
    let owner = caller.tenant();
    // Fetched in a loop far more often than it changes: kept rendered at
    // its version (which its decision's changes move too), so a repeat
    // costs a probe instead of two reads and a render. With nothing kept,
    // the record's read brings its version: no probe.
    let key = (owner, id);
    if let Some(app_id) = ApplicationId::parse(&key.1)
        && state.application_pages.holds(&key)
        && let Some(version) = state.lending.application_version(&key.0, &app_id).await?
        && let Some(body) = state.application_pages.get(&key, &version)
    {
        return Ok(json_response(body));
    }
    let (owner, id) = &key;
    let application = find(&state.flows, owner, id).await?;
    let mut view = ApplicationView::new(&application, &state.links);
    if let Some(decision_id) = &application.decision_id
        && let Some(decision) = state.lending.hub_decision(owner, decision_id).await?
    {
        view = view.with_decision(DecisionView::new(&decision));
    }
    let body =
        Bytes::from(serde_json::to_vec(&view).map_err(|e| PartnerError::Internal(e.to_string()))?);
    state
        .application_pages
        .put(key.clone(), application.version, body.clone());
    Ok(json_response(body))
}
