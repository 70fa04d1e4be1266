use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::partner::scope::PartnerScope;

use super::find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::webhook_endpoint::WebhookEndpointView;

/// Retrieve one of your webhook endpoints (never its secret).
#[utoipa::path(get, operation_id = "getWebhookEndpoint", path = "/webhook_endpoints/{id}", tag = "webhooks",
    security(("oauth2" = ["webhooks.manage"]), ("api_key" = [])),
    params(("id" = String, Path, description = "whe_…")),
    responses((status = 200, body = WebhookEndpointView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"), (status = 404, description = "not_found")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<WebhookEndpointView>, PartnerError> {
    caller.require(PartnerScope::WebhooksManage)?;
    let record = find(&state, &caller.tenant(), &id).await?;
    Ok(Json(WebhookEndpointView::new(
        &record.endpoint,
        caller.livemode(),
        None,
    )))
}
