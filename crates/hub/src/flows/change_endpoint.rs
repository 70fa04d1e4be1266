//! Changing a webhook endpoint's settings or status, from the REST tier or
//! the dashboard: a change of status is announced.

use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
use lendhub_store::{EventWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use super::events::event;
use crate::views::webhook_endpoint::WebhookEndpointView;

/// The writes that turn `current` into `changed`, and `changed` as it then
/// reads: one write stores the settings with the status, and a change of
/// status emits `webhook_endpoint.disabled` or `.enabled`.
pub fn changing(
    owner: &Tenant,
    current: &WebhookEndpoint,
    changed: WebhookEndpoint,
    livemode: bool,
    now: OffsetDateTime,
) -> Result<(WebhookEndpointView, WriteSet), FlowError> {
    let view = WebhookEndpointView::new(&changed, livemode, None);
    let mut writes = WriteSet::default();
    if changed.status == current.status {
        writes.push(EventWrite::UpdateEndpoint(changed));
        return Ok((view, writes));
    }
    let kind = match changed.status {
        EndpointStatus::Disabled => EventType::WebhookEndpointDisabled,
        EndpointStatus::Enabled => EventType::WebhookEndpointEnabled,
    };
    let announced = event(owner, kind, &view, now)?;
    writes
        .push(EventWrite::SetEndpointStatus {
            endpoint: changed,
            from: current.status,
        })
        .push(EventWrite::InsertEvent(announced));
    Ok((view, writes))
}

/// The writes that enable `current` again, and the endpoint as it then
/// reads: none for an endpoint that is not disabled, since enabling is
/// idempotent.
pub fn enabling(
    owner: &Tenant,
    current: &WebhookEndpoint,
    livemode: bool,
    now: OffsetDateTime,
) -> Result<(WebhookEndpointView, WriteSet), FlowError> {
    if current.status != EndpointStatus::Disabled {
        let view = WebhookEndpointView::new(current, livemode, None);
        return Ok((view, WriteSet::default()));
    }
    let enabled = WebhookEndpoint {
        status: EndpointStatus::Enabled,
        ..current.clone()
    };
    changing(owner, current, enabled, livemode, now)
}
