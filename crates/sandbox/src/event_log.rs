//! Builds durable events: the envelope is rendered once, stored, listed and
//! delivered byte for byte.

use lendhub_domain::events::{Event, EventType};
use lendhub_domain::ids::SandboxId;
use serde::Serialize;
use time::OffsetDateTime;

use crate::error::SandboxError;
use crate::views::rfc3339;

#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    id: &'a str,
    object: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    api_version: &'static str,
    created_at: String,
    livemode: bool,
    data: Data<'a, T>,
}

#[derive(Serialize)]
struct Data<'a, T: Serialize> {
    object: &'a T,
}

pub fn event(
    owner: &str,
    kind: EventType,
    object: &impl Serialize,
    now: OffsetDateTime,
) -> Result<Event, SandboxError> {
    let id = SandboxId::new_random(lendhub_domain::clock::unix_ms(now) as u64);
    let envelope = Envelope {
        id: id.as_str(),
        object: "event",
        kind: kind.as_str(),
        api_version: crate::API_VERSION,
        created_at: rfc3339(now),
        livemode: false,
        data: Data { object },
    };
    let body =
        serde_json::to_string(&envelope).map_err(|e| SandboxError::Internal(e.to_string()))?;
    Ok(Event {
        id,
        owner: owner.to_owned(),
        event_type: kind,
        created_at: now,
        body,
    })
}

/// Renders the event the outbox worker stores when it disables an endpoint,
/// in the sandbox's envelope, like every other event.
pub struct EndpointEventRenderer;

impl lendhub_webhooks::worker::EndpointEvents for EndpointEventRenderer {
    fn disabled(
        &self,
        endpoint: &lendhub_domain::webhook::WebhookEndpoint,
        at: OffsetDateTime,
    ) -> Result<Event, String> {
        event(
            &endpoint.owner,
            EventType::WebhookEndpointDisabled,
            &crate::views::WebhookEndpointView::new(endpoint, None),
            at,
        )
        .map_err(|e| format!("{e:?}"))
    }
}
