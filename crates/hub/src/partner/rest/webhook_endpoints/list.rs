use axum::extract::{RawQuery, State};
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::list;

use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::list_page::respond;
use crate::partner::state::PartnerState;
use crate::views::webhook_endpoint::WebhookEndpointView;

/// List your webhook endpoints, newest first.
#[utoipa::path(get, operation_id = "listWebhookEndpoints", path = "/webhook_endpoints", tag = "webhooks",
    security(("oauth2" = ["webhooks.manage"]), ("api_key" = [])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query), ("ending_before" = Option<String>, Query)),
    responses((status = 200, description = "`{object: \"list\", data: [webhook_endpoint], has_more, url, next_cursor}`"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the cursor names no endpoint of yours"),
        (status = 422, description = "validation_failed")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: RestCaller,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::WebhooksManage)?;
    let request =
        list::parse(raw.as_deref(), list::DEFAULT_LIMIT, &[]).map_err(PartnerError::Validation)?;
    // An environment has at most a few endpoints: one read, paged here.
    let mut endpoints: Vec<_> = state
        .events
        .endpoints(&caller.tenant())
        .await?
        .into_iter()
        .map(|r| r.endpoint)
        .collect();
    endpoints.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
    let page = request
        .page
        .slice(&endpoints, |e| e.id.as_str())
        .ok_or(PartnerError::NotFound("webhook endpoint for the cursor"))?;
    respond(
        caller.env,
        "/webhook_endpoints",
        &request.page,
        &page,
        |e| e.id.to_string(),
        |e| WebhookEndpointView::new(e, caller.livemode(), None),
    )
}
