//! A past event delivered again through the outbox, to one endpoint or to
//! every enabled endpoint that receives its type, with its original id and
//! bytes, signed like any delivery.

use lendhub_domain::ids::{EventId, HubId};
use lendhub_domain::sandbox::ids::PublishedId;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint::EndpointStatus;
use lendhub_store::{EventWrite, WriteSet};
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::error::FlowError;
use crate::views::event_replay::EventReplay;

/// Event `raw_id` of `owner`'s queued again, for endpoint `only` (which
/// must be enabled) or for every endpoint that receives it.
pub async fn replay(
    cx: &Context,
    owner: &Tenant,
    raw_id: &str,
    only: Option<&str>,
    now: OffsetDateTime,
) -> Result<(EventReplay, WriteSet), FlowError> {
    let missing = FlowError::NotFound("event");
    let event_id = EventId::parse(raw_id).ok_or(missing)?;
    let event = cx
        .events
        .event(owner, &PublishedId::from(event_id))
        .await?
        .ok_or(FlowError::NotFound("event"))?;
    let endpoints = cx.events.endpoints(owner).await?;
    let targets: Vec<String> = match only {
        Some(wanted) => {
            let endpoint = endpoints
                .iter()
                .find(|r| r.endpoint.id.as_str() == wanted)
                .ok_or(FlowError::NotFound("webhook endpoint"))?;
            if endpoint.endpoint.status == EndpointStatus::Disabled {
                return Err(FlowError::Conflict(
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
        event_id: raw_id.to_owned(),
        endpoint_ids: targets.clone(),
    };
    let mut writes = WriteSet::default();
    writes.push(EventWrite::QueueDeliveries {
        event_id: raw_id.to_owned(),
        owner: owner.clone(),
        endpoint_ids: targets,
        at_ms: lendhub_domain::clock::unix_ms(now),
    });
    Ok((view, writes))
}
