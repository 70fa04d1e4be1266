//! The event types the sandbox emits and how endpoints subscribe to them.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::ids::PublishedId;
use crate::tenant::Tenant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventType {
    #[serde(rename = "application.created")]
    ApplicationCreated,
    #[serde(rename = "decision.completed")]
    DecisionCompleted,
    #[serde(rename = "offer.accepted")]
    OfferAccepted,
    #[serde(rename = "account.activated")]
    AccountActivated,
    #[serde(rename = "account.closed")]
    AccountClosed,
    #[serde(rename = "payment.settled")]
    PaymentSettled,
    #[serde(rename = "payment.failed")]
    PaymentFailed,
    #[serde(rename = "webhook_endpoint.disabled")]
    WebhookEndpointDisabled,
    #[serde(rename = "webhook_endpoint.enabled")]
    WebhookEndpointEnabled,
}

/// What an event's `data.object` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    Application,
    Decision,
    Payment,
    WebhookEndpoint,
}

impl EventType {
    pub const ALL: [EventType; 9] = [
        EventType::ApplicationCreated,
        EventType::DecisionCompleted,
        EventType::OfferAccepted,
        EventType::AccountActivated,
        EventType::AccountClosed,
        EventType::PaymentSettled,
        EventType::PaymentFailed,
        EventType::WebhookEndpointDisabled,
        EventType::WebhookEndpointEnabled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::ApplicationCreated => "application.created",
            EventType::DecisionCompleted => "decision.completed",
            EventType::OfferAccepted => "offer.accepted",
            EventType::AccountActivated => "account.activated",
            EventType::AccountClosed => "account.closed",
            EventType::PaymentSettled => "payment.settled",
            EventType::PaymentFailed => "payment.failed",
            EventType::WebhookEndpointDisabled => "webhook_endpoint.disabled",
            EventType::WebhookEndpointEnabled => "webhook_endpoint.enabled",
        }
    }

    pub fn object_kind(self) -> ObjectKind {
        match self {
            EventType::ApplicationCreated
            | EventType::OfferAccepted
            | EventType::AccountActivated
            | EventType::AccountClosed => ObjectKind::Application,
            EventType::DecisionCompleted => ObjectKind::Decision,
            EventType::PaymentSettled | EventType::PaymentFailed => ObjectKind::Payment,
            EventType::WebhookEndpointDisabled | EventType::WebhookEndpointEnabled => {
                ObjectKind::WebhookEndpoint
            }
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == raw)
    }

    pub fn describe(self) -> &'static str {
        match self {
            EventType::ApplicationCreated => {
                "an application was created (data.object: application)"
            }
            EventType::DecisionCompleted => {
                "the decision engine finished, or an underwriter settled a referred application (data.object: decision)"
            }
            EventType::OfferAccepted => "the offer was accepted (data.object: application)",
            EventType::AccountActivated => {
                "the disbursement settled and the loan is funded (data.object: application)"
            }
            EventType::AccountClosed => "the balance was repaid in full (data.object: application)",
            EventType::PaymentSettled => {
                "a disbursement or repayment settled (data.object: payment)"
            }
            EventType::PaymentFailed => "a disbursement or repayment failed (data.object: payment)",
            EventType::WebhookEndpointDisabled => {
                "the endpoint was disabled after its delivery schedule ran out (~72 h of failures) (data.object: webhook_endpoint)"
            }
            EventType::WebhookEndpointEnabled => {
                "a disabled endpoint was enabled again (data.object: webhook_endpoint)"
            }
        }
    }
}

/// How long events are kept, and so listed and replayable (hub seed,
/// Events → Delivery contract §4; the sandbox keeps the same).
pub const RETENTION: time::Duration = time::Duration::days(30);

/// The wildcard subscription.
pub const ALL_EVENTS: &str = "*";

/// The REST tier's payload version (a date, hub seed Versioning §4): what
/// its events' `api_version` says unless an endpoint is pinned to another.
pub const HUB_API_VERSION: &str = "2026-11-25";

/// Every version an endpoint may be pinned to.
pub const HUB_API_VERSIONS: &[&str] = &[HUB_API_VERSION];

/// The REST tier's event vocabulary, which `enabled_events` and the `type`
/// filter accept: the seed's catalogue, the names its other pages use
/// (both payment sets among them; docs/decisions.md says which is
/// emitted), and lendhub's own endpoint events.
pub const HUB_EVENT_TYPES: &[&str] = &[
    "application.created",
    "application.submitted",
    "application.expired",
    "application.withdrawn",
    "application.funded",
    "decision.completed",
    "offer.accepted",
    "identity.verified",
    "identity.review_required",
    "account.activated",
    "account.updated",
    "account.closed",
    "payment.created",
    "payment.processing",
    "payment.paid",
    "payment.settled",
    "payment.failed",
    "payment.refunded",
    "mandate.revoked",
    "schedule.completed",
    "payout.paid",
    "loan.funded",
    "agreement.signed",
    "invoice.draft",
    "invoice.finalized",
    "webhook_endpoint.disabled",
    "webhook_endpoint.enabled",
];

/// A durable event: the rendered envelope is what every delivery sends, byte for byte.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub id: PublishedId,
    pub owner: Tenant,
    pub event_type: EventType,
    pub created_at: OffsetDateTime,
    pub body: String,
}

/// Who publishes events, and so what every envelope says of itself: the
/// API version its payloads follow, and whether it concerns live money.
/// The sandbox publishes with `livemode: false`; the REST tier's live
/// environment will publish with `true`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Publisher {
    pub api_version: &'static str,
    pub livemode: bool,
}

#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    id: &'a str,
    object: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    api_version: &'static str,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    livemode: bool,
    data: Data<'a, T>,
}

#[derive(Serialize)]
struct Data<'a, T: Serialize> {
    object: &'a T,
}

impl Publisher {
    /// The event `id` of `kind` about `object`, its envelope rendered once:
    /// it is stored, listed and delivered byte for byte.
    pub fn event(
        &self,
        id: impl Into<PublishedId>,
        owner: &Tenant,
        kind: EventType,
        object: &impl Serialize,
        now: OffsetDateTime,
    ) -> Result<Event, serde_json::Error> {
        let id = id.into();
        let body = serde_json::to_string(&Envelope {
            id: id.as_str(),
            object: "event",
            kind: kind.as_str(),
            api_version: self.api_version,
            created_at: now,
            livemode: self.livemode,
            data: Data { object },
        })?;
        Ok(Event {
            id,
            owner: owner.clone(),
            event_type: kind,
            created_at: now,
            body,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_says_who_published_it() {
        let live = Publisher {
            api_version: "2030-01-01",
            livemode: true,
        };
        let id: crate::ids::EventId = crate::ids::SandboxId::generate(0, 7);
        let event = live
            .event(
                id.clone(),
                &Tenant::sandbox_client("owner"),
                EventType::PaymentFailed,
                &serde_json::json!({"id": "p"}),
                OffsetDateTime::UNIX_EPOCH,
            )
            .unwrap();
        let body: serde_json::Value = serde_json::from_str(&event.body).unwrap();
        assert_eq!(
            body,
            serde_json::json!({
                "id": id.as_str(), "object": "event", "type": "payment.failed",
                "api_version": "2030-01-01", "created_at": "1970-01-01T00:00:00Z",
                "livemode": true, "data": {"object": {"id": "p"}}
            })
        );
    }

    #[test]
    fn names_round_trip() {
        for t in EventType::ALL {
            assert_eq!(EventType::parse(t.as_str()), Some(t));
            assert_eq!(
                serde_json::to_value(t).ok(),
                Some(serde_json::Value::from(t.as_str()))
            );
        }
    }
}
