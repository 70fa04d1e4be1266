//! The REST tier's paths this deployment does not serve: every path of the
//! seed's tier (Endpoints → Planned REST tier, the catalogue extras, and the
//! few lendhub adds to them, such as reading and deleting an endpoint)
//! answers 503 `service_unavailable` while `rest_tier.enabled` is off, and,
//! once it is on, each path whose resource has not been built yet still
//! does — never 404. Like every answer of the tier, the 503 spends and
//! reports a rate-limit bucket.

use std::collections::BTreeMap;

use axum::Router;
use axum::routing::{MethodRouter, delete, get, post};

use super::caller::Admitted;
use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;

async fn unavailable(_admitted: Admitted) -> PartnerError {
    PartnerError::PlannedTier
}

/// Every method and path of the REST tier, relative to its mount.
pub const PATHS: &[(&str, &str)] = &[
    ("POST", "/applications"),
    ("GET", "/applications"),
    ("GET", "/applications/{id}"),
    ("POST", "/applications/{id}/withdraw"),
    ("GET", "/applications/{id}/decision"),
    ("GET", "/decisions"),
    ("GET", "/decisions/{id}"),
    ("POST", "/decisions/{id}/refresh"),
    ("POST", "/payments/links"),
    ("POST", "/payments/schedules"),
    ("GET", "/payments"),
    ("GET", "/payments/{id}"),
    ("GET", "/payments/schedules/{id}"),
    ("DELETE", "/payments/schedules/{id}"),
    ("POST", "/payments/{id}/refund"),
    ("GET", "/accounts"),
    ("GET", "/accounts/{id}"),
    ("GET", "/accounts/{id}/balance"),
    ("GET", "/accounts/{id}/transactions"),
    ("POST", "/sub-accounts"),
    ("GET", "/sub-accounts"),
    ("GET", "/sub-accounts/{id}"),
    ("GET", "/introductions"),
    ("GET", "/payouts"),
    ("POST", "/identity/checks"),
    ("GET", "/identity/checks/{id}"),
    ("POST", "/applications/{id}/submit"),
    ("POST", "/webhook_endpoints"),
    ("GET", "/webhook_endpoints"),
    ("GET", "/webhook_endpoints/{id}"),
    ("POST", "/webhook_endpoints/{id}"),
    ("DELETE", "/webhook_endpoints/{id}"),
    ("POST", "/webhook_endpoints/{id}/enable"),
    ("POST", "/webhook_endpoints/{id}/rotate_secret"),
    ("GET", "/events"),
    ("POST", "/events/{id}/replay"),
    ("POST", "/marketplace/apps"),
    ("GET", "/marketplace/apps/{id}"),
    ("POST", "/marketplace/subscriptions"),
    ("POST", "/marketplace/signals"),
    ("GET", "/openapi.json"),
    ("POST", "/test_helpers/request_signature"),
    ("GET", "/test_helpers/clock"),
    ("POST", "/test_helpers/clock/advance"),
    ("POST", "/test_helpers/events"),
    ("POST", "/test_helpers/mandates/{id}/revoke"),
];

/// 503 routes for every path of the tier that `live` does not serve: the
/// seed's (`PATHS`) and every path `documented` (the tier's OpenAPI
/// document), so a path the document names can never answer 404 while the
/// tier is off.
pub fn routes<'a>(
    documented: impl IntoIterator<Item = (&'a str, &'a str)>,
    live: impl Fn(&str, &str) -> bool,
) -> Router<PartnerState> {
    let mut by_path: BTreeMap<&str, BTreeMap<&str, MethodRouter<PartnerState>>> = BTreeMap::new();
    for (method, path) in PATHS.iter().copied().chain(documented) {
        if live(method, path) {
            continue;
        }
        let route = match method {
            "GET" => get(unavailable),
            "POST" => post(unavailable),
            _ => delete(unavailable),
        };
        by_path.entry(path).or_default().insert(method, route);
    }
    by_path
        .into_iter()
        .fold(Router::new(), |router, (path, methods)| {
            let merged = methods
                .into_values()
                .reduce(MethodRouter::merge)
                .unwrap_or_default();
            router.route(path, merged)
        })
}
