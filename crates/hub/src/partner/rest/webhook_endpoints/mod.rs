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

use lendhub_domain::ids::{HubId, WebhookEndpointId};
use lendhub_domain::problem::Problem;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint_request::check_url_length;
use lendhub_store::EndpointRecord;
use lendhub_webhooks::policy::UrlRejection;

use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;

pub use crate::flows::webhook_endpoints::MAX_ENDPOINTS;

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

/// The URL under `field`, checked for length, then against the network
/// policy as written and, for a hostname, as it resolves now (it is checked
/// again at every delivery).
pub(crate) async fn check_url(
    state: &PartnerState,
    field: &str,
    raw: &str,
) -> Result<String, PartnerError> {
    check_url_length(field, raw)?;
    let rejected = |r: UrlRejection| PartnerError::url_rejected(Problem::new(field, r.reason()));
    let policy = state.sender.policy();
    let url = policy.check_url(raw).map_err(rejected)?;
    policy.check_resolved(&url).await.map_err(rejected)?;
    Ok(url.to_string())
}
