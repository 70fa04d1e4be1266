//! Webhook endpoints of the REST tier (`/webhook_endpoints`): one file per
//! action; here the view and the checks they share. Every action needs
//! `webhooks.manage`; an endpoint belongs to the environment it was made in.

mod create;
mod delete;
pub(crate) mod enable;
mod list;
mod retrieve;
mod rotate_secret;
mod update;

pub use create::*;
pub use delete::*;
pub use enable::*;
pub use list::*;
pub use retrieve::*;
pub use rotate_secret::*;
pub use update::*;

use std::collections::BTreeMap;

use lendhub_domain::ids::{HubId, WebhookEndpointId};
use lendhub_domain::sandbox::events::{ALL_EVENTS, EventType, HUB_API_VERSIONS};
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint::WebhookEndpoint;
use lendhub_http::FieldIssue;
use lendhub_store::EndpointRecord;
use lendhub_webhooks::policy::UrlRejection;
use time::OffsetDateTime;

use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;

/// Per environment of a partner (the seed does not say; docs/decisions.md).
pub const MAX_ENDPOINTS: u32 = 16;
const MAX_URL: usize = 2048;
const MAX_DESCRIPTION: usize = 500;
const MAX_METADATA: usize = 20;
const MAX_METADATA_KEY: usize = 40;
const MAX_METADATA_VALUE: usize = 500;

/// The caller's endpoint `raw_id`, or 404.
pub(crate) async fn find(
    state: &PartnerState,
    owner: &Tenant,
    raw_id: &str,
) -> Result<EndpointRecord, PartnerError> {
    let missing = PartnerError::NotFound("webhook endpoint");
    if WebhookEndpointId::parse(raw_id).is_none() {
        return Err(missing);
    }
    state
        .events
        .endpoints(owner)
        .await?
        .into_iter()
        .find(|r| r.endpoint.id.as_str() == raw_id)
        .ok_or(missing)
}

fn invalid(field: &str, reason: &str) -> PartnerError {
    PartnerError::invalid(field, reason)
}

/// `enabled_events`: at least one, each a type of the tier, or `*` alone.
pub(crate) fn check_events(events: &[String]) -> Result<(), PartnerError> {
    if events.is_empty() {
        return Err(invalid("enabled_events", "min_items"));
    }
    if events.iter().any(|e| e == ALL_EVENTS) && events.len() > 1 {
        return Err(invalid("enabled_events", "wildcard_alone"));
    }
    let unknown: Vec<FieldIssue> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.as_str() != ALL_EVENTS && EventType::parse(e).is_none())
        .map(|(i, _)| FieldIssue::new(format!("enabled_events[{i}]"), "unknown_event_type"))
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(PartnerError::WebhookEventUnknown(unknown))
    }
}

pub(crate) fn check_description(d: Option<&str>) -> Result<(), PartnerError> {
    match d {
        Some(d) if d.chars().count() > MAX_DESCRIPTION => Err(invalid("description", "max_length")),
        _ => Ok(()),
    }
}

pub(crate) fn check_api_version(v: Option<&str>) -> Result<(), PartnerError> {
    match v {
        Some(v) if !HUB_API_VERSIONS.contains(&v) => Err(invalid("api_version", "unknown_version")),
        _ => Ok(()),
    }
}

/// Up to 20 string pairs; keys up to 40 characters, values up to 500.
pub(crate) fn check_metadata(m: &BTreeMap<String, String>) -> Result<(), PartnerError> {
    let mut issues = Vec::new();
    if m.len() > MAX_METADATA {
        issues.push(FieldIssue::new("metadata", "max_pairs").with_bound(MAX_METADATA));
    }
    for (k, v) in m {
        if k.is_empty() || k.chars().count() > MAX_METADATA_KEY {
            issues.push(FieldIssue::new(format!("metadata.{k}"), "key_length"));
        }
        if v.chars().count() > MAX_METADATA_VALUE {
            issues.push(FieldIssue::new(format!("metadata.{k}"), "max_length"));
        }
    }
    if issues.is_empty() {
        Ok(())
    } else {
        Err(PartnerError::Validation(issues))
    }
}

fn url_rejected(r: &UrlRejection) -> PartnerError {
    PartnerError::WebhookUrlInvalid(FieldIssue::new("url", r.reason()))
}

/// A new, enabled endpoint of `owner` with a fresh signing secret: the
/// endpoint, the secret in plaintext (shown once, in the answer), and its
/// write (the secret sealed; the commit takes one of the owner's slots).
pub(crate) fn new_endpoint(
    state: &PartnerState,
    owner: &Tenant,
    url: String,
    enabled_events: Vec<String>,
    (description, api_version, metadata): (
        Option<String>,
        Option<String>,
        BTreeMap<String, String>,
    ),
    now: OffsetDateTime,
) -> (WebhookEndpoint, String, lendhub_store::EventWrite) {
    use lendhub_system::Seal;
    let id: WebhookEndpointId =
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let endpoint = WebhookEndpoint {
        id: id.into(),
        owner: owner.clone(),
        url,
        enabled_events,
        description,
        status: lendhub_domain::webhooks::endpoint::EndpointStatus::Enabled,
        created_at: now,
        api_version,
        metadata,
    };
    let secret = lendhub_system::webhook_secret();
    let sealed_secret = state
        .master_key
        .seal(lendhub_webhooks::SECRET_PURPOSE, secret.as_bytes());
    let write = lendhub_store::EventWrite::InsertEndpoint {
        record: EndpointRecord {
            endpoint: endpoint.clone(),
            sealed_secret,
        },
        max_per_owner: MAX_ENDPOINTS,
    };
    (endpoint, secret, write)
}

/// The URL, checked against the network policy as written and, for a
/// hostname, as it resolves now (it is checked again at every delivery).
pub(crate) async fn check_url(state: &PartnerState, raw: &str) -> Result<String, PartnerError> {
    if raw.len() > MAX_URL {
        return Err(invalid("url", "max_length"));
    }
    let policy = state.sender.policy();
    let url = policy.check_url(raw).map_err(|r| url_rejected(&r))?;
    policy
        .check_resolved(&url)
        .await
        .map_err(|r| url_rejected(&r))?;
    Ok(url.to_string())
}
