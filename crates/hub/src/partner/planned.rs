//! The planned REST tier (seed 001, Endpoints → Planned REST tier, and the
//! catalogue extras): every path answers 503 `service_unavailable` until
//! `rest_tier.enabled` is switched on. This is the one place that switch is read.

use axum::Router;
use axum::routing::{MethodRouter, delete, get, post};

use super::error::PartnerError;
use crate::partner::state::PartnerState;

async fn unavailable() -> PartnerError {
    PartnerError::PlannedTier
}

/// Every method and path of the planned tier, relative to `/partner/v1`.
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
    ("GET", "/introductions"),
    ("GET", "/payouts"),
    ("POST", "/identity/checks"),
    ("POST", "/webhook_endpoints"),
    ("POST", "/webhook_endpoints/{id}/enable"),
    ("GET", "/events"),
    ("POST", "/events/{id}/replay"),
    ("POST", "/marketplace/apps"),
    ("GET", "/marketplace/apps/{id}"),
    ("POST", "/marketplace/subscriptions"),
    ("POST", "/marketplace/signals"),
    ("GET", "/openapi.json"),
];

/// The planned tier's routes: 503 each while it is switched off. Switched
/// on, it has no routes yet — the issue that builds the tier adds them here.
pub fn routes(enabled: bool) -> Router<PartnerState> {
    if enabled {
        return Router::new();
    }
    let mut by_path: Vec<(&str, MethodRouter<PartnerState>)> = Vec::new();
    for (method, path) in PATHS {
        let route = match *method {
            "GET" => get(unavailable),
            "POST" => post(unavailable),
            _ => delete(unavailable),
        };
        match by_path.iter_mut().find(|(p, _)| p == path) {
            Some((_, existing)) => *existing = std::mem::take(existing).merge(route),
            None => by_path.push((path, route)),
        }
    }
    by_path
        .into_iter()
        .fold(Router::new(), |router, (path, route)| {
            router.route(path, route)
        })
}
