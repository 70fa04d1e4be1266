//! What the delivery engine records when it disables a hub endpoint after
//! 72 hours of failures: the event and the partner's notice.

use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::TenantKind;
use lendhub_store::{EventWrite, PublicWrite, Write};
use time::OffsetDateTime;

use super::events::event;

/// Renders a hub endpoint's disabling, for the delivery engine.
pub struct EndpointEventRenderer;

impl lendhub_webhooks::worker::EndpointEvents for EndpointEventRenderer {
    /// The `webhook_endpoint.disabled` event, and an e-mail to the
    /// partner's contact address (if it has one) through the mail outbox.
    fn disabled(
        &self,
        endpoint: &lendhub_domain::webhooks::endpoint::WebhookEndpoint,
        at: OffsetDateTime,
    ) -> Result<Vec<Write>, String> {
        let TenantKind::Partner {
            client_id,
            livemode,
            ..
        } = endpoint.owner.kind()
        else {
            return Err(format!("{} is not a partner", endpoint.owner));
        };
        let view =
            crate::views::webhook_endpoint::WebhookEndpointView::new(endpoint, livemode, None);
        let announced = event(
            &endpoint.owner,
            EventType::WebhookEndpointDisabled,
            &view,
            at,
        )
        .map_err(|e| e.to_string())?;
        let environment = if livemode { "live" } else { "test" };
        let notice = PublicWrite::MailPartner {
            id: format!("mail_{}", announced.id),
            client_id: client_id.to_owned(),
            subject: format!("Webhook endpoint {} disabled", endpoint.id),
            body: format!(
                "Every delivery to your webhook endpoint {id} ({url}, {environment} environment) \
                 has failed for 72 hours, so lendhub has disabled it and stopped delivering to it.\n\n\
                 Fix the receiver, then enable the endpoint again:\n  POST /webhook_endpoints/{id}/enable\n\
                 Events from the last 30 days can be replayed with POST /events/{{id}}/replay.\n",
                id = endpoint.id,
                url = endpoint.url,
            ),
            due_ms: lendhub_domain::clock::unix_ms(at),
        };
        Ok(vec![
            EventWrite::InsertEvent(announced).into(),
            notice.into(),
        ])
    }
}
