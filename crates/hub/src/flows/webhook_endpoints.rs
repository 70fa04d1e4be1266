//! A new webhook endpoint, for the REST tier's registration and for a
//! marketplace subscription, which delivers through an endpoint of its own.

use std::collections::BTreeMap;

use lendhub_domain::ids::WebhookEndpointId;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
use lendhub_store::{EndpointRecord, EventWrite};
use lendhub_system::Seal;
use time::OffsetDateTime;

use crate::flows::Context;

/// Per environment of a partner (the seed does not say; docs/decisions.md).
pub const MAX_ENDPOINTS: u32 = 16;

/// What a new endpoint is made of, once its URL has passed the network
/// policy and its events are known.
pub struct Draft {
    pub url: String,
    pub enabled_events: Vec<String>,
    pub description: Option<String>,
    pub api_version: Option<String>,
    pub metadata: BTreeMap<String, String>,
}

/// A new, enabled endpoint of `owner` with a fresh signing secret: the
/// endpoint, the secret in plaintext (shown once, in the answer), and its
/// write (the secret sealed; the commit takes one of the owner's
/// [`MAX_ENDPOINTS`] slots, and is refused as a conflict when none is left).
pub fn new_endpoint(
    cx: &Context,
    owner: &Tenant,
    draft: Draft,
    now: OffsetDateTime,
) -> (WebhookEndpoint, String, EventWrite) {
    let id: WebhookEndpointId =
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let endpoint = WebhookEndpoint {
        id: id.into(),
        owner: owner.clone(),
        url: draft.url,
        enabled_events: draft.enabled_events,
        description: draft.description,
        status: EndpointStatus::Enabled,
        created_at: now,
        api_version: draft.api_version,
        metadata: draft.metadata,
    };
    let secret = lendhub_system::webhook_secret();
    let sealed_secret = cx
        .master_key
        .seal(lendhub_webhooks::SECRET_PURPOSE, secret.as_bytes());
    let write = EventWrite::InsertEndpoint {
        record: EndpointRecord {
            endpoint: endpoint.clone(),
            sealed_secret,
        },
        max_per_owner: MAX_ENDPOINTS,
    };
    (endpoint, secret, write)
}
