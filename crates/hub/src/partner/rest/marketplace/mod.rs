//! The marketplace (hub seed, Marketplace; issue #17): a partner registers
//! the third-party vendors it works with as app listings, which the
//! lender's operator reviews (`lendhub marketplace apps …`); an approved app
//! subscribes to the partner's events, delivered to the app's own endpoint
//! under a secret of its own, and publishes signals that the decision
//! engine weighs while an application's decision is unresolved. One
//! handler file per endpoint; here the views and what they share.

pub mod create_app;
pub mod publish_signal;
pub mod retrieve_app;
pub mod subscribe;

use lendhub_domain::ids::{HubId, MarketplaceAppId};
use lendhub_domain::marketplace::{App, Review};
use lendhub_domain::tenant::Tenant;

use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;

/// The caller's app `raw_id` (404 otherwise), which must be approved
/// (409 `marketplace_app_not_approved`) to subscribe or publish.
pub(crate) async fn approved_app(
    state: &PartnerState,
    owner: &Tenant,
    raw_id: &str,
) -> Result<App, PartnerError> {
    let missing = PartnerError::NotFound("marketplace app");
    let Some(id) = MarketplaceAppId::parse(raw_id) else {
        return Err(missing);
    };
    let app = state
        .commercial
        .marketplace_app(owner, &id)
        .await?
        .ok_or(missing)?;
    if app.review != Review::Approved {
        return Err(PartnerError::AppNotApproved(app.review.as_str()));
    }
    Ok(app)
}
