//! The event types the sandbox emits and how endpoints subscribe to them.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::sandbox::ids::PublishedId;
use crate::tenant::Tenant;

/// Every event type lendhub emits: the sandbox's nine ([`EventType::SANDBOX`])
/// and the REST tier's vocabulary ([`EventType::HUB`]), which includes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventType {
    #[serde(rename = "application.created")]
    ApplicationCreated,
    #[serde(rename = "application.submitted")]
    ApplicationSubmitted,
    #[serde(rename = "application.expired")]
    ApplicationExpired,
    #[serde(rename = "application.withdrawn")]
    ApplicationWithdrawn,
    #[serde(rename = "application.funded")]
    ApplicationFunded,
    #[serde(rename = "application.funding_failed")]
    ApplicationFundingFailed,
    #[serde(rename = "decision.completed")]
    DecisionCompleted,
    #[serde(rename = "offer.accepted")]
    OfferAccepted,
    #[serde(rename = "identity.verified")]
    IdentityVerified,
    #[serde(rename = "identity.review_required")]
    IdentityReviewRequired,
    #[serde(rename = "account.activated")]
    AccountActivated,
    #[serde(rename = "account.updated")]
    AccountUpdated,
    #[serde(rename = "account.closed")]
    AccountClosed,
    #[serde(rename = "payment.created")]
    PaymentCreated,
    #[serde(rename = "payment.processing")]
    PaymentProcessing,
    #[serde(rename = "payment.paid")]
    PaymentPaid,
    #[serde(rename = "payment.settled")]
    PaymentSettled,
    #[serde(rename = "payment.failed")]
    PaymentFailed,
    #[serde(rename = "payment.refunded")]
    PaymentRefunded,
    #[serde(rename = "payment.refund_paid")]
    PaymentRefundPaid,
    #[serde(rename = "payment.refund_failed")]
    PaymentRefundFailed,
    #[serde(rename = "mandate.revoked")]
    MandateRevoked,
    #[serde(rename = "schedule.completed")]
    ScheduleCompleted,
    #[serde(rename = "payout.paid")]
    PayoutPaid,
    #[serde(rename = "payout.failed")]
    PayoutFailed,
    #[serde(rename = "loan.funded")]
    LoanFunded,
    #[serde(rename = "agreement.signed")]
    AgreementSigned,
    #[serde(rename = "invoice.draft")]
    InvoiceDraft,
    #[serde(rename = "invoice.finalized")]
    InvoiceFinalized,
    #[serde(rename = "model.drift_detected")]
    ModelDriftDetected,
    #[serde(rename = "webhook_endpoint.disabled")]
    WebhookEndpointDisabled,
    #[serde(rename = "webhook_endpoint.enabled")]
    WebhookEndpointEnabled,
}

/// What a sandbox event's `data.object` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    Application,
    Decision,
    Payment,
    WebhookEndpoint,
}

impl EventType {
    /// What the sandbox emits (its fixtures list them).
    pub const SANDBOX: [EventType; 9] = [
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

    /// The REST tier's vocabulary, which `enabled_events` and the `type`
    /// filter accept: the seed's catalogue, the names its other pages use
    /// (both payment sets among them; docs/decisions.md says which is
    /// emitted), and lendhub's own endpoint events.
    pub const HUB: [EventType; 32] = [
        EventType::ApplicationCreated,
        EventType::ApplicationSubmitted,
        EventType::ApplicationExpired,
        EventType::ApplicationWithdrawn,
        EventType::ApplicationFunded,
        EventType::ApplicationFundingFailed,
        EventType::DecisionCompleted,
        EventType::OfferAccepted,
        EventType::IdentityVerified,
        EventType::IdentityReviewRequired,
        EventType::AccountActivated,
        EventType::AccountUpdated,
        EventType::AccountClosed,
        EventType::PaymentCreated,
        EventType::PaymentProcessing,
        EventType::PaymentPaid,
        EventType::PaymentSettled,
        EventType::PaymentFailed,
        EventType::PaymentRefunded,
        EventType::PaymentRefundPaid,
        EventType::PaymentRefundFailed,
        EventType::MandateRevoked,
        EventType::ScheduleCompleted,
        EventType::PayoutPaid,
        EventType::PayoutFailed,
        EventType::LoanFunded,
        EventType::AgreementSigned,
        EventType::InvoiceDraft,
        EventType::InvoiceFinalized,
        EventType::ModelDriftDetected,
        EventType::WebhookEndpointDisabled,
        EventType::WebhookEndpointEnabled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::ApplicationCreated => "application.created",
            EventType::ApplicationSubmitted => "application.submitted",
            EventType::ApplicationExpired => "application.expired",
            EventType::ApplicationWithdrawn => "application.withdrawn",
            EventType::ApplicationFunded => "application.funded",
            EventType::ApplicationFundingFailed => "application.funding_failed",
            EventType::DecisionCompleted => "decision.completed",
            EventType::OfferAccepted => "offer.accepted",
            EventType::IdentityVerified => "identity.verified",
            EventType::IdentityReviewRequired => "identity.review_required",
            EventType::AccountActivated => "account.activated",
            EventType::AccountUpdated => "account.updated",
            EventType::AccountClosed => "account.closed",
            EventType::PaymentCreated => "payment.created",
            EventType::PaymentProcessing => "payment.processing",
            EventType::PaymentPaid => "payment.paid",
            EventType::PaymentSettled => "payment.settled",
            EventType::PaymentFailed => "payment.failed",
            EventType::PaymentRefunded => "payment.refunded",
            EventType::PaymentRefundPaid => "payment.refund_paid",
            EventType::PaymentRefundFailed => "payment.refund_failed",
            EventType::MandateRevoked => "mandate.revoked",
            EventType::ScheduleCompleted => "schedule.completed",
            EventType::PayoutPaid => "payout.paid",
            EventType::PayoutFailed => "payout.failed",
            EventType::LoanFunded => "loan.funded",
            EventType::AgreementSigned => "agreement.signed",
            EventType::InvoiceDraft => "invoice.draft",
            EventType::InvoiceFinalized => "invoice.finalized",
            EventType::ModelDriftDetected => "model.drift_detected",
            EventType::WebhookEndpointDisabled => "webhook_endpoint.disabled",
            EventType::WebhookEndpointEnabled => "webhook_endpoint.enabled",
        }
    }

    /// Any type lendhub emits, sandbox or hub; stored events are read back with it.
    pub fn parse(raw: &str) -> Option<Self> {
        Self::HUB.into_iter().find(|t| t.as_str() == raw)
    }

    /// A type the sandbox emits.
    pub fn sandbox(raw: &str) -> Option<Self> {
        Self::SANDBOX.into_iter().find(|t| t.as_str() == raw)
    }

    /// What `data.object` is in a sandbox event of this type; `None` for a
    /// type only the REST tier emits.
    pub fn object_kind(self) -> Option<ObjectKind> {
        Some(match self {
            EventType::ApplicationCreated
            | EventType::OfferAccepted
            | EventType::AccountActivated
            | EventType::AccountClosed => ObjectKind::Application,
            EventType::DecisionCompleted => ObjectKind::Decision,
            EventType::PaymentSettled | EventType::PaymentFailed => ObjectKind::Payment,
            EventType::WebhookEndpointDisabled | EventType::WebhookEndpointEnabled => {
                ObjectKind::WebhookEndpoint
            }
            _ => return None,
        })
    }

    /// In the REST tier, the `object` of this type's `data.object` (the
    /// seed's event catalogue, and docs/decisions.md for the types it names
    /// without a payload) and the prefix of its id.
    pub fn hub_object(self) -> (&'static str, &'static str) {
        match self {
            EventType::ApplicationCreated
            | EventType::ApplicationSubmitted
            | EventType::ApplicationExpired
            | EventType::ApplicationWithdrawn
            | EventType::ApplicationFunded
            | EventType::ApplicationFundingFailed => ("application", "app_"),
            EventType::DecisionCompleted => ("decision", "dec_"),
            EventType::OfferAccepted => ("offer", "ofr_"),
            EventType::IdentityVerified | EventType::IdentityReviewRequired => {
                ("verification", "ver_")
            }
            EventType::AccountActivated
            | EventType::AccountUpdated
            | EventType::AccountClosed
            | EventType::LoanFunded => ("account", "acc_"),
            EventType::PaymentCreated
            | EventType::PaymentProcessing
            | EventType::PaymentPaid
            | EventType::PaymentSettled
            | EventType::PaymentFailed
            | EventType::PaymentRefunded
            | EventType::PaymentRefundPaid
            | EventType::PaymentRefundFailed => ("payment", "pay_"),
            EventType::MandateRevoked => ("mandate", "mnd_"),
            EventType::ScheduleCompleted => ("payment_schedule", "sch_"),
            EventType::PayoutPaid | EventType::PayoutFailed => ("payout", "po_"),
            EventType::AgreementSigned => ("agreement", "agr_"),
            EventType::InvoiceDraft | EventType::InvoiceFinalized => ("partner_statement", "pst_"),
            EventType::ModelDriftDetected => ("model_drift", "mdr_"),
            EventType::WebhookEndpointDisabled | EventType::WebhookEndpointEnabled => {
                ("webhook_endpoint", "whe_")
            }
        }
    }

    /// What a sandbox event of this type reports (the sandbox's fixtures).
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
            // Emitted by the REST tier only, whose catalogue describes them.
            _ => "emitted by the REST tier only",
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
        let id: crate::sandbox::ids::EventId = crate::sandbox::ids::SandboxId::generate(0, 7);
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
        for t in EventType::HUB {
            assert_eq!(EventType::parse(t.as_str()), Some(t));
            assert_eq!(
                serde_json::to_value(t).ok(),
                Some(serde_json::Value::from(t.as_str()))
            );
        }
    }

    #[test]
    fn the_sandbox_emits_a_subset_of_the_hub_vocabulary() {
        for t in EventType::SANDBOX {
            assert!(EventType::HUB.contains(&t));
            assert_eq!(EventType::sandbox(t.as_str()), Some(t));
            assert!(t.object_kind().is_some());
        }
        assert_eq!(EventType::sandbox("payment.paid"), None);
        assert_eq!(
            EventType::parse("payment.paid"),
            Some(EventType::PaymentPaid)
        );
    }
}
