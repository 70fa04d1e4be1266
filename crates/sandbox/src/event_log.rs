//! The sandbox's events: the domain's envelope (`Publisher`), published as
//! the sandbox (`livemode: false`, the sandbox's API version).

use lendhub_domain::sandbox::events::{Event, EventType, Publisher};
use lendhub_domain::sandbox::ids::{EventId, SandboxId};
use serde::Serialize;
use time::OffsetDateTime;

use crate::error::SandboxError;
use lendhub_domain::tenant::Tenant;
use lendhub_system::NewRandom;

/// What the sandbox's events say of themselves.
pub const PUBLISHER: Publisher = Publisher {
    api_version: crate::API_VERSION,
    livemode: false,
};

/// A new event from the sandbox (`PUBLISHER`), with a fresh id.
pub fn event(
    owner: &Tenant,
    kind: EventType,
    object: &impl Serialize,
    now: OffsetDateTime,
) -> Result<Event, SandboxError> {
    let id: EventId = SandboxId::new_random(lendhub_domain::clock::unix_ms(now) as u64);
    PUBLISHER
        .event(id, owner, kind, object, now)
        .map_err(|e| SandboxError::Internal(e.to_string()))
}

/// Renders the event the outbox worker stores when it disables an endpoint,
/// in the sandbox's envelope, like every other event.
pub struct EndpointEventRenderer;

impl lendhub_webhooks::worker::EndpointEvents for EndpointEventRenderer {
    fn disabled(
        &self,
        endpoint: &lendhub_domain::webhooks::endpoint::WebhookEndpoint,
        at: OffsetDateTime,
    ) -> Result<Vec<lendhub_store::Write>, String> {
        let announced = event(
            &endpoint.owner,
            EventType::WebhookEndpointDisabled,
            &crate::views::WebhookEndpointView::new(endpoint, None),
            at,
        )
        .map_err(|e| format!("{e:?}"))?;
        Ok(vec![
            lendhub_store::EventWrite::InsertEvent(announced).into(),
        ])
    }
}
