use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::webhooks::endpoint_request::check_overlap;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::OptionalJsonBody;
use lendhub_store::{EventWrite, WriteSet};
use lendhub_system::{Seal, webhook_secret};
use lendhub_webhooks::SECRET_PURPOSE;
use serde::Deserialize;
use time::{Duration, OffsetDateTime};
use utoipa::ToSchema;

use super::find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::webhook_endpoint::WebhookEndpointView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateWebhookSecret {
    /// How long deliveries also carry a signature by the old secret:
    /// 0 to 604 800 seconds, default 86 400 (24 h).
    #[schema(minimum = 0, maximum = 604800)]
    overlap_seconds: Option<i64>,
}

/// Replace an endpoint's signing secret. The new secret is in this answer
/// only; until `previous_secret_expires_at`, deliveries carry two `v1`
/// signatures, one by each secret, so receivers can switch without a gap.
#[utoipa::path(post, operation_id = "rotateWebhookSecret", path = "/webhook_endpoints/{id}/rotate_secret", tag = "webhooks",
    security(("oauth2" = ["webhooks.manage"]), ("api_key" = [])),
    params(("id" = String, Path, description = "whe_…"), ("Idempotency-Key" = Option<String>, Header)),
    request_body(content = Option<RotateWebhookSecret>, description = "optional"),
    responses((status = 200, body = WebhookEndpointView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"), (status = 404, description = "not_found"),
        (status = 422, description = "validation_failed")))]
pub async fn rotate_secret(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
    body: OptionalJsonBody<RotateWebhookSecret>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::WebhooksManage)?;
    let owner = &write.owner;
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let overlap = check_overlap(body.value.overlap_seconds)?;
            let current = find(&state, owner, &id).await?.endpoint;
            let secret = webhook_secret();
            // Deliveries are signed in real time (receivers check the
            // timestamp against their own clocks), so the overlap is too.
            let until = OffsetDateTime::now_utc() + Duration::seconds(overlap);
            let mut writes = WriteSet::default();
            writes.push(EventWrite::RotateEndpointSecret {
                id: current.id.to_string(),
                owner: owner.clone(),
                sealed_secret: state.master_key.seal(SECRET_PURPOSE, secret.as_bytes()),
                previous_expires_at_ms: lendhub_domain::clock::unix_ms(until),
            });
            let view = WebhookEndpointView::new(&current, caller.livemode(), Some(secret))
                .replacing_until(until);
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
        .map_err(|e| match e {
            PartnerError::Conflict(_) => PartnerError::NotFound("webhook endpoint"),
            e => e,
        })
}
