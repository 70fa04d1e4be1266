//! The sandbox router: every route registered together with its OpenAPI entry.

mod applications;
pub(crate) mod events;
mod fixtures;
mod health;
mod payments;
mod test_helpers;
mod token;
mod webhook_endpoints;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::SandboxState;

/// Request bodies are small JSON documents; anything larger is refused with 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

pub(crate) fn api() -> OpenApiRouter<SandboxState> {
    OpenApiRouter::with_openapi(crate::openapi::base())
        .routes(routes!(health::healthz))
        .routes(routes!(health::livez))
        .routes(routes!(token::issue))
        .routes(routes!(fixtures::fixtures))
        .routes(routes!(applications::create))
        .routes(routes!(applications::get))
        .routes(routes!(applications::accept))
        .routes(routes!(payments::create))
        .routes(routes!(webhook_endpoints::create))
        .routes(routes!(webhook_endpoints::enable))
        .routes(routes!(events::list))
        .routes(routes!(events::replay))
        .routes(routes!(test_helpers::clock::get))
        .routes(routes!(test_helpers::clock::advance))
        .routes(routes!(test_helpers::events::create))
        .routes(routes!(test_helpers::reset::reset))
}

/// The complete document, as served at `GET /openapi.json`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    crate::openapi::finish(api().into_openapi())
}

/// The sandbox's routes with their state; layers are added by the server.
pub fn router(state: SandboxState) -> Router {
    let (router, spec) = api().split_for_parts();
    let spec = serde_json::to_value(crate::openapi::finish(spec)).unwrap_or_default();
    router
        .route(
            "/openapi.json",
            axum::routing::get(move || async move { axum::Json(spec) }),
        )
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}
