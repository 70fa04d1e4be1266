//! Enabling a webhook endpoint again, from the REST tier or the dashboard.

use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
use lendhub_store::{EventWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use super::events::event;
use crate::views::webhook_endpoint::WebhookEndpointView;

/// The writes that enable `current` again (its status, and
/// `webhook_endpoint.enabled`), and the endpoint as it then reads. None for
/// an endpoint that is not disabled: enabling is idempotent.
pub fn enabling(
    owner: &Tenant,
    current: &WebhookEndpoint,
    livemode: bool,
    now: OffsetDateTime,
) -> Result<(WebhookEndpointView, WriteSet), FlowError> {
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
        .map_err(|e| FlowError::Internal(e.to_string()))?;
    writes
        .push(EventWrite::SetEndpointStatus {
            endpoint: enabled,
            from: EndpointStatus::Disabled,
        })
        .push(EventWrite::InsertEvent(announced));
    Ok((view, writes))
}
