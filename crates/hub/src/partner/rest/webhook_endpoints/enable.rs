use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::OptionalJsonBody;
use lendhub_store::{EventWrite, WriteSet};
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::{WebhookEndpointView, find};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::events::event;
use crate::partner::state::PartnerState;

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

/// The writes that enable `current` again (its status, and
/// `webhook_endpoint.enabled`), and the endpoint as it then reads. None for
/// an endpoint that is not disabled: enabling is idempotent.
pub(crate) fn enabling(
    owner: &Tenant,
    current: &WebhookEndpoint,
    livemode: bool,
    now: OffsetDateTime,
) -> Result<(WebhookEndpointView, WriteSet), PartnerError> {
    let mut writes = WriteSet::default();
    if current.status != EndpointStatus::Disabled {
        return Ok((WebhookEndpointView::new(current, livemode, None), writes));
    }
    let enabled = WebhookEndpoint {
        status: EndpointStatus::Enabled,
        ..current.clone()
    };
    let view = WebhookEndpointView::new(&enabled, livemode, None);
    let announced = event(owner, EventType::WebhookEndpointEnabled, &view, now)
        .map_err(|e| PartnerError::Internal(e.to_string()))?;
    writes
        .push(EventWrite::SetEndpointStatus {
            endpoint: enabled,
            from: EndpointStatus::Disabled,
        })
        .push(EventWrite::InsertEvent(announced));
    Ok((view, writes))
}
