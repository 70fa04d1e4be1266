//! The REST tier of the partner ring (seed 001, Endpoints → Planned REST
//! tier), served twice: live under `/partner/v1` and as the test
//! environment under `/sandbox/v1` (the seed's pricing text names that
//! path with `sk_test_` keys). `rest_tier.enabled` is read here and only
//! here: off, every path of the tier answers 503; on, the paths built so
//! far are live and the rest still answer 503.

pub mod accounts;
pub mod api_version;
pub mod applications;
pub mod bank_connections;
pub(crate) mod caller;
pub mod decisions;
mod event_replay;
pub mod events;
pub mod identity_checks;
pub mod introductions;
mod list_page;
pub mod marketplace;
pub mod openapi_doc;
pub mod payments;
pub mod payouts;
mod schemas;
pub mod statements;
pub mod sub_accounts;
mod test_helpers;
mod waiting;
pub mod webhook_endpoints;

use std::collections::HashSet;

use axum::Router;
use utoipa::openapi::PathItem;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use caller::{Admitted, RestCaller};
pub use waiting::PATHS;

use crate::partner::state::PartnerState;

/// Where the test environment is mounted on the hub.
pub const SANDBOX_PREFIX: &str = "/sandbox/v1";

/// The tier's routes built so far, each registered with its OpenAPI entry.
pub fn api() -> OpenApiRouter<PartnerState> {
    use webhook_endpoints as whe;
    OpenApiRouter::new()
        .routes(routes!(openapi_doc::get))
        .routes(routes!(
            applications::create::create,
            applications::list::list
        ))
        .routes(routes!(applications::retrieve::retrieve))
        .routes(routes!(applications::withdraw::withdraw))
        .routes(routes!(applications::submit::submit))
        .routes(routes!(applications::accept::accept))
        .routes(routes!(applications::agreement::agreement))
        .routes(routes!(bank_connections::banks::list))
        .routes(routes!(bank_connections::create::create))
        .routes(routes!(bank_connections::retrieve::retrieve))
        .routes(routes!(decisions::refresh::refresh))
        .routes(routes!(decisions::for_application::for_application))
        .routes(routes!(decisions::retrieve::retrieve))
        .routes(routes!(decisions::list::list))
        .routes(routes!(payments::create_link::create_link))
        .routes(routes!(payments::list::list))
        .routes(routes!(payments::retrieve::retrieve))
        .routes(routes!(payments::refund::refund))
        .routes(routes!(payments::schedules::create::create))
        .routes(routes!(
            payments::schedules::retrieve::retrieve,
            payments::schedules::cancel::cancel
        ))
        .routes(routes!(accounts::list::list))
        .routes(routes!(accounts::retrieve::retrieve))
        .routes(routes!(accounts::balance::balance))
        .routes(routes!(accounts::transactions::transactions))
        .routes(routes!(
            sub_accounts::create::create,
            sub_accounts::list::list
        ))
        .routes(routes!(
            sub_accounts::retrieve::retrieve,
            sub_accounts::update::update
        ))
        .routes(routes!(introductions::list::list))
        .routes(routes!(marketplace::create_app::create_app))
        .routes(routes!(marketplace::retrieve_app::retrieve_app))
        .routes(routes!(marketplace::subscribe::subscribe))
        .routes(routes!(marketplace::publish_signal::publish_signal))
        .routes(routes!(statements::list::list))
        .routes(routes!(statements::retrieve::retrieve))
        .routes(routes!(statements::invoice::invoice))
        .routes(routes!(payouts::list::list))
        .routes(routes!(identity_checks::create::create))
        .routes(routes!(identity_checks::retrieve::retrieve))
        .routes(routes!(events::list))
        .routes(routes!(event_replay::replay))
        .routes(routes!(whe::create, whe::list))
        .routes(routes!(whe::retrieve, whe::update, whe::delete))
        .routes(routes!(whe::enable))
        .routes(routes!(whe::rotate_secret))
        .routes(routes!(test_helpers::check_request_signature))
        .routes(routes!(test_helpers::clock::get))
        .routes(routes!(test_helpers::clock::advance))
        .routes(routes!(test_helpers::events::create))
        .routes(routes!(test_helpers::mandates::revoke))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES))
}

/// The largest request body the tier reads (the seed does not say;
/// docs/decisions.md): larger answers 413 `payload_too_large`.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The methods a documented path serves (the tier uses these three).
fn methods(item: &PathItem) -> impl Iterator<Item = &'static str> {
    [
        ("GET", item.get.is_some()),
        ("POST", item.post.is_some()),
        ("DELETE", item.delete.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, served)| served.then_some(name))
}

/// The tier for one mount: what is built when `enabled`, 503 for the rest.
pub fn router(enabled: bool) -> Router<PartnerState> {
    let (built, spec) = api().split_for_parts();
    let documented: Vec<(&'static str, &str)> = spec
        .paths
        .paths
        .iter()
        .flat_map(|(path, item)| methods(item).map(move |m| (m, path.as_str())))
        .collect();
    if !enabled {
        return waiting::routes(documented.iter().copied(), |_, _| false);
    }
    let live: HashSet<(&str, &str)> = documented.iter().copied().collect();
    built
        .merge(waiting::routes(documented.iter().copied(), |m, p| {
            live.contains(&(m, p))
        }))
        .layer(axum::middleware::from_fn(api_version::pin))
}
