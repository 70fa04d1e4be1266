//! Marketplace apps, subscriptions and signals, as the API shows them.

use lendhub_domain::marketplace::{App, Signal, Subscription};
use lendhub_domain::tenant::{Tenant, TenantKind};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

/// A marketplace app listing.
#[derive(Serialize, ToSchema)]
pub struct AppView {
    #[schema(example = "mkt_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0")]
    id: String,
    #[schema(example = "marketplace.app")]
    object: &'static str,
    #[schema(example = "Fraudscope")]
    name: String,
    /// `open_banking`, `identity`, `e_sign`, `accounting` or `fraud`.
    #[schema(example = "fraud")]
    category: &'static str,
    redirect_uris: Vec<String>,
    /// Where its subscriptions' events are delivered.
    webhook_url: Option<String>,
    /// `pending_review`, `approved` or `rejected` (by the lender).
    #[schema(example = "pending_review")]
    review_state: &'static str,
    /// The lender's note on approval, or why it was rejected.
    review_note: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    reviewed_at: Option<OffsetDateTime>,
    livemode: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl AppView {
    pub fn new(a: &App) -> Self {
        Self {
            id: a.id.to_string(),
            object: "marketplace.app",
            name: a.name.clone(),
            category: a.category.as_str(),
            redirect_uris: a.redirect_uris.clone(),
            webhook_url: a.webhook_url.clone(),
            review_state: a.review.as_str(),
            review_note: a.review_note.clone(),
            reviewed_at: a.reviewed_at,
            livemode: livemode(&a.owner),
            created_at: a.created_at,
        }
    }
}

/// An app's subscription to events: a webhook endpoint of its own.
#[derive(Serialize, ToSchema)]
pub struct SubscriptionView {
    #[schema(example = "msub_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0")]
    id: String,
    #[schema(example = "marketplace.subscription")]
    object: &'static str,
    app_id: String,
    /// The `whe_…` endpoint its deliveries go through: its deliveries,
    /// retries and replays are managed as any endpoint's.
    webhook_endpoint_id: String,
    /// The app's webhook URL, where they are delivered.
    url: String,
    enabled_events: Vec<String>,
    /// `whsec_…`, the app's own signing secret: shown once, here.
    secret: String,
    livemode: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl SubscriptionView {
    pub fn new(s: &Subscription, url: &str, secret: String) -> Self {
        Self {
            id: s.id.to_string(),
            object: "marketplace.subscription",
            app_id: s.app_id.to_string(),
            webhook_endpoint_id: s.endpoint_id.clone(),
            url: url.to_owned(),
            enabled_events: s.enabled_events.clone(),
            secret,
            livemode: livemode(&s.owner),
            created_at: s.created_at,
        }
    }
}

/// A signal, as published.
#[derive(Serialize, ToSchema)]
pub struct SignalView {
    #[schema(example = "sig_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0")]
    id: String,
    #[schema(example = "marketplace.signal")]
    object: &'static str,
    application_id: String,
    #[schema(example = "fraud")]
    kind: &'static str,
    /// Whether it counts: `false` when the application's decision was
    /// already resolved (approved, declined, funded, withdrawn or expired).
    accepted: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl SignalView {
    pub fn new(s: &Signal) -> Self {
        Self {
            id: s.id.to_string(),
            object: "marketplace.signal",
            application_id: s.application_id.to_string(),
            kind: s.kind.as_str(),
            accepted: s.accepted,
            created_at: s.created_at,
        }
    }
}

pub(crate) fn livemode(owner: &Tenant) -> bool {
    matches!(owner.kind(), TenantKind::Partner { livemode: true, .. })
}
