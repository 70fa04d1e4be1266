//! `POST /events/{id}/replay`: a past event delivered again through the
//! outbox — to one endpoint, or to every enabled endpoint that receives its
//! type — with its original id and bytes, signed like any delivery.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::OptionalJsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use super::caller::RestCaller;
use crate::flows::event_replay::replay as replay_event;
use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;
use crate::views::event_replay::EventReplay;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayEvent {
    /// Only this endpoint (`whe_…`, enabled); otherwise every enabled
    /// endpoint that receives the event's type.
    endpoint_id: Option<String>,
}

/// Deliver a past event again (events are kept 30 days). Deliveries are
/// queued and made like any other, at least once, with the event's
/// original id and body.
#[utoipa::path(post, operation_id = "replayEvent", path = "/events/{id}/replay", tag = "events",
    security(("oauth2" = ["webhooks.manage"]), ("api_key" = [])),
    params(("id" = String, Path, description = "evt_…"), ("Idempotency-Key" = Option<String>, Header)),
    request_body(content = Option<ReplayEvent>, description = "optional"),
    responses((status = 202, body = EventReplay), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such event or endpoint of yours"),
        (status = 409, description = "conflict: the endpoint is disabled; enable it first")))]
pub async fn replay(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
    body: OptionalJsonBody<ReplayEvent>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::WebhooksManage)?;
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let only = body.value.endpoint_id.as_deref();
            let (view, writes) =
                replay_event(&state.flows, &write.owner, &id, only, write.now).await?;
            Ok(Prepared::json(StatusCode::ACCEPTED, &view, writes)?)
        })
        .await
}
