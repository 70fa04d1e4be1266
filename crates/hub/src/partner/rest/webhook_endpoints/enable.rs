use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::OptionalJsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use super::find;
use crate::flows::change_endpoint::enabling;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::webhook_endpoint::WebhookEndpointView;

/// The enable request takes no members; an empty body is fine.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnableWebhookEndpoint {}

/// Enable an endpoint again (typically one disabled after ~72 h of failed
/// deliveries): delivery resumes, and `webhook_endpoint.enabled` is emitted.
/// An endpoint already enabled is returned unchanged.
#[utoipa::path(post, operation_id = "enableWebhookEndpoint", path = "/webhook_endpoints/{id}/enable", tag = "webhooks",
    security(("oauth2" = ["webhooks.manage"]), ("api_key" = [])),
    params(("id" = String, Path, description = "whe_…"), ("Idempotency-Key" = Option<String>, Header)),
    request_body(content = Option<EnableWebhookEndpoint>, description = "optional, empty"),
    responses((status = 200, body = WebhookEndpointView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"), (status = 404, description = "not_found"),
        (status = 409, description = "changed concurrently; retry")))]
pub async fn enable(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
    body: OptionalJsonBody<EnableWebhookEndpoint>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::WebhooksManage)?;
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let current = find(&state, owner, &id).await?.endpoint;
            let (view, writes) = enabling(owner, &current, caller.livemode(), now)?;
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
