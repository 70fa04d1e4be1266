//! A webhook endpoint, as the API shows it (its secret only when new).

use std::collections::BTreeMap;

use lendhub_domain::sandbox::events::HUB_API_VERSION;
use lendhub_domain::webhooks::endpoint::WebhookEndpoint;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

/// A webhook endpoint as the tier shows it; `secret` only when it is new.
#[derive(Serialize, ToSchema)]
pub struct WebhookEndpointView {
    #[schema(example = "whe_01JD3M5T7YV0000000000000000")]
    id: String,
    #[schema(example = "webhook_endpoint")]
    object: &'static str,
    url: String,
    enabled_events: Vec<String>,
    /// `enabled` or `disabled`.
    status: &'static str,
    /// The payload version its events follow.
    api_version: String,
    description: Option<String>,
    metadata: BTreeMap<String, String>,
    livemode: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    /// `whsec_…`: shown once, when the endpoint is made or its secret rotated.
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
    /// After a rotation: until when deliveries also carry a signature by
    /// the secret it replaced.
    #[serde(
        skip_serializing_if = "Option::is_none",
        with = "time::serde::rfc3339::option"
    )]
    #[schema(value_type = Option<String>, format = DateTime)]
    previous_secret_expires_at: Option<OffsetDateTime>,
}

impl WebhookEndpointView {
    pub fn new(e: &WebhookEndpoint, livemode: bool, secret: Option<String>) -> Self {
        Self {
            id: e.id.to_string(),
            object: "webhook_endpoint",
            url: e.url.clone(),
            enabled_events: e.enabled_events.clone(),
            status: e.status.as_str(),
            api_version: e
                .api_version
                .clone()
                .unwrap_or_else(|| HUB_API_VERSION.to_owned()),
            description: e.description.clone(),
            metadata: e.metadata.clone(),
            livemode,
            created_at: e.created_at,
            secret,
            previous_secret_expires_at: None,
        }
    }

    /// After a rotation: the old secret signs too until `until`.
    pub fn replacing_until(mut self, until: OffsetDateTime) -> Self {
        self.previous_secret_expires_at = Some(until);
        self
    }
}
