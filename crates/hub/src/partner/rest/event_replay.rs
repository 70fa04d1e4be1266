//! `POST /events/{id}/replay`: a past event delivered again through the
//! outbox — to one endpoint, or to every enabled endpoint that receives its
//! type — with its original id and bytes, signed like any delivery.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::ids::{EventId, HubId};
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::sandbox::ids::PublishedId;
use lendhub_domain::webhooks::endpoint::EndpointStatus;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::OptionalJsonBody;
use lendhub_store::{EventWrite, WriteSet};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::caller::RestCaller;
use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayEvent {
    /// Only this endpoint (`whe_…`, enabled); otherwise every enabled
    /// endpoint that receives the event's type.
    endpoint_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct EventReplay {
    #[schema(example = "event_replay")]
    object: &'static str,
    event_id: String,
    /// The endpoints a delivery was queued for.
    endpoint_ids: Vec<String>,
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
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let Some(event_id) = EventId::parse(&id) else {
                return Err(PartnerError::NotFound("event"));
            };
            let event = state
                .events
                .event(owner, &PublishedId::from(event_id))
                .await?
                .ok_or(PartnerError::NotFound("event"))?;
            let endpoints = state.events.endpoints(owner).await?;
            let targets: Vec<String> = match body.value.endpoint_id.as_deref() {
                Some(wanted) => {
                    let endpoint = endpoints
                        .iter()
                        .find(|r| r.endpoint.id.as_str() == wanted)
                        .ok_or(PartnerError::NotFound("webhook endpoint"))?;
                    if endpoint.endpoint.status == EndpointStatus::Disabled {
                        return Err(PartnerError::Conflict(
                            "the endpoint is disabled; enable it first",
                        ));
                    }
                    vec![wanted.to_owned()]
                }
                None => endpoints
                    .iter()
                    .filter(|r| r.endpoint.receives(event.event_type.as_str()))
                    .map(|r| r.endpoint.id.to_string())
                    .collect(),
            };
            let view = EventReplay {
                object: "event_replay",
                event_id: id.clone(),
                endpoint_ids: targets.clone(),
            };
            let mut writes = WriteSet::default();
            writes.push(EventWrite::QueueDeliveries {
                event_id: id.clone(),
                owner: owner.clone(),
                endpoint_ids: targets,
                at_ms: lendhub_domain::clock::unix_ms(now),
            });
            Ok(Prepared::json(StatusCode::ACCEPTED, &view, writes)?)
        })
        .await
}
