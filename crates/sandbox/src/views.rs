//! The JSON shapes the sandbox returns, with their OpenAPI schemas. Built
//! from domain values; the domain itself knows nothing of HTTP.

use lendhub_domain::loan::Offer;
use lendhub_domain::sandbox::application::Application;
use lendhub_domain::sandbox::decisioning::Reason;
use lendhub_domain::sandbox::payment::Payment;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
use serde::Serialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use utoipa::ToSchema;

pub fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_default()
}

#[derive(Serialize, ToSchema)]
pub struct BusinessView {
    pub company_number: String,
    pub name: String,
}

#[derive(Serialize, ToSchema)]
pub struct ReasonView {
    /// A reason code from the hub catalogue, e.g. `credit_ok`, `thin_file`.
    pub code: String,
    /// `affordability`, `credit`, `identity`, `eligibility` or `policy`.
    pub category: String,
}

impl From<&Reason> for ReasonView {
    fn from(r: &Reason) -> Self {
        let code = serde_json::to_value(r.code)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        Self {
            code,
            category: r.category.clone(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct OfferView {
    pub amount_pence: i64,
    pub term_months: u32,
    /// Representative APR, percent, one decimal place.
    pub apr: f64,
    pub monthly_repayment_pence: i64,
    /// Sum of all instalments; the final instalment absorbs rounding.
    pub total_repayable_pence: i64,
    pub is_indicative: bool,
}

impl From<&Offer> for OfferView {
    fn from(o: &Offer) -> Self {
        Self {
            amount_pence: o.amount_pence.as_pence(),
            term_months: o.term_months,
            apr: o.apr,
            monthly_repayment_pence: o.monthly_repayment_pence.as_pence(),
            total_repayable_pence: o.total_repayable_pence.as_pence(),
            is_indicative: o.is_indicative,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct DecisionView {
    #[schema(example = "decision")]
    pub object: &'static str,
    pub application_id: String,
    /// `approved`, `referred` or `declined`.
    pub outcome: String,
    pub reasons: Vec<ReasonView>,
    pub offer: Option<OfferView>,
    /// When an approved offer lapses if not accepted.
    pub expires_at: Option<String>,
    pub decided_at: String,
}

impl From<&Application> for DecisionView {
    fn from(a: &Application) -> Self {
        let outcome = serde_json::to_value(a.decision.outcome)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        Self {
            object: "decision",
            application_id: a.id.to_string(),
            outcome,
            reasons: a.decision.reasons.iter().map(ReasonView::from).collect(),
            offer: a.decision.offer.as_ref().map(OfferView::from),
            expires_at: a.offer_expires_at().map(rfc3339),
            decided_at: rfc3339(a.decided_at),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct PaymentView {
    pub id: String,
    #[schema(example = "payment")]
    pub object: &'static str,
    pub application_id: String,
    /// `disbursement` (funding on accept) or `collection` (a repayment).
    pub direction: String,
    pub amount_pence: i64,
    #[schema(example = "GBP")]
    pub currency: &'static str,
    /// `settled` or `failed`.
    pub status: String,
    /// Set when failed: `insufficient_funds`, `payer_cancelled`, `mandate_revoked`, `bank_unavailable`.
    pub failure_reason: Option<String>,
    /// The simulated bank account, on disbursements.
    pub bank_account: Option<String>,
    pub livemode: bool,
    pub created_at: String,
}

fn name_of<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl From<&Payment> for PaymentView {
    fn from(p: &Payment) -> Self {
        Self {
            id: p.id.to_string(),
            object: "payment",
            application_id: p.application_id.to_string(),
            direction: name_of(&p.direction),
            amount_pence: p.amount_pence.as_pence(),
            currency: "GBP",
            status: name_of(&p.status),
            failure_reason: p.failure_reason.map(|r| r.as_str().to_owned()),
            bank_account: p.bank_account.map(|b| b.as_str().to_owned()),
            livemode: false,
            created_at: rfc3339(p.created_at),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct ApplicationView {
    pub id: String,
    #[schema(example = "application")]
    pub object: &'static str,
    /// `approved`, `referred`, `declined`, `funded`, `funding_failed` or `repaid`.
    pub status: String,
    pub business: BusinessView,
    pub amount_pence: i64,
    pub decision: DecisionView,
    /// The latest disbursement attempt, once accepted.
    pub funding: Option<PaymentView>,
    /// What remains to be repaid; zero until funded.
    pub outstanding_pence: i64,
    pub livemode: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl From<&Application> for ApplicationView {
    fn from(a: &Application) -> Self {
        Self {
            id: a.id.to_string(),
            object: "application",
            status: a.status.as_str().to_owned(),
            business: BusinessView {
                company_number: a.company_number.clone(),
                name: a.company_name.clone(),
            },
            amount_pence: a.amount_pence.as_pence(),
            decision: DecisionView::from(a),
            funding: a.funding.as_ref().map(PaymentView::from),
            outstanding_pence: a.outstanding_pence.as_pence(),
            livemode: false,
            created_at: rfc3339(a.created_at),
            updated_at: rfc3339(a.updated_at),
        }
    }
}

/// The application as stored for writing: the domain record plus the JSON
/// that reads serve.
pub fn application_record(
    a: &Application,
) -> Result<lendhub_store::ApplicationRecord, crate::error::SandboxError> {
    let view = render_application(a)?;
    Ok(record_with_view(a.clone(), view))
}

/// The application's view, rendered once: a creation answers, announces
/// and stores the same bytes.
pub fn render_application(
    a: &Application,
) -> Result<Box<serde_json::value::RawValue>, crate::error::SandboxError> {
    serde_json::value::to_raw_value(&ApplicationView::from(a))
        .map_err(|e| crate::error::SandboxError::Internal(e.to_string()))
}

/// The record to store for `a`, whose view is already rendered.
pub fn record_with_view(
    a: Application,
    view: Box<serde_json::value::RawValue>,
) -> lendhub_store::ApplicationRecord {
    lendhub_store::ApplicationRecord {
        application: a,
        rendered: Box::<str>::from(view).into(),
    }
}

#[derive(Serialize, ToSchema)]
pub struct WebhookEndpointView {
    pub id: String,
    #[schema(example = "webhook_endpoint")]
    pub object: &'static str,
    pub url: String,
    pub enabled_events: Vec<String>,
    pub description: Option<String>,
    /// `enabled` or `disabled`.
    pub status: String,
    pub created_at: String,
    /// The signing secret (`whsec_…`). Present only in the creation response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

impl WebhookEndpointView {
    pub fn new(e: &WebhookEndpoint, secret: Option<String>) -> Self {
        Self {
            id: e.id.to_string(),
            object: "webhook_endpoint",
            url: e.url.clone(),
            enabled_events: e.enabled_events.clone(),
            description: e.description.clone(),
            status: if e.status == EndpointStatus::Enabled {
                "enabled"
            } else {
                "disabled"
            }
            .to_owned(),
            created_at: rfc3339(e.created_at),
            secret,
        }
    }
}

/// Schema of the error envelope every non-2xx response carries.
#[derive(Serialize, ToSchema)]
pub struct ErrorEnvelope {
    pub error: ErrorBody,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// Stable machine-readable code; see /docs/guide/sandbox-errors.html.
    pub code: String,
    /// Human-readable; wording may change.
    pub message: String,
    /// Also returned in the `x-service-request-id` header.
    pub request_id: String,
    /// Per-field problems, on `validation_failed` and friends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Vec<lendhub_http::FieldIssue>>,
}
