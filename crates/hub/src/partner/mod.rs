//! The live partner ring under `/partner/v1`, and the hub's `/.well-known`
//! metadata documents.

pub mod api_keys;
mod auth;
pub mod clients;
pub mod directory;
pub(crate) mod error;
mod guide;
pub mod limits;
mod mcp;
mod metadata;
pub mod people;
pub mod request_keys;
pub mod rest;
mod secrets;
pub mod state;
mod token;
pub mod tokens;
pub mod traffic;
mod verifications;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::get;
use lendhub_http::Problem;
use lendhub_http::around::{Around, Hook};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use error::PartnerError;
pub use mcp::{PROTOCOL_VERSION as MCP_PROTOCOL_VERSION, TOOLS as MCP_TOOLS};
pub use rest::PATHS as PLANNED_PATHS;

use crate::partner::state::PartnerState;

/// Where the partner ring is mounted on the hub.
pub const PREFIX: &str = "/partner/v1";

/// The partner ring's documented routes, each registered with its OpenAPI entry.
pub fn api() -> OpenApiRouter<PartnerState> {
    OpenApiRouter::new()
        .routes(routes!(token::token))
        .routes(routes!(token::introspect))
        .routes(routes!(token::revoke))
        .routes(routes!(metadata::jwks))
        .routes(routes!(mcp::mcp))
}

pub fn router(state: PartnerState) -> Router {
    // One tier, mounted live and as the test environment.
    let rest_tier = rest::router(state.settings.rest_tier_enabled);
    let (partner, _spec) = api().split_for_parts();
    Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(metadata::authorization_server),
        )
        .route(
            "/.well-known/oauth-protected-resource",
            get(metadata::protected_resource),
        )
        // RFC 9728 §3.1: the metadata of a resource with a path is also
        // found under that path.
        .route(
            "/.well-known/oauth-protected-resource/partner/v1",
            get(metadata::protected_resource),
        )
        .nest(
            PREFIX,
            partner
                .route("/auth.md", get(guide::auth_md))
                .merge(rest_tier.clone())
                .fallback(route_not_found)
                .layer(Around(limits::Headers)),
        )
        .nest(
            rest::SANDBOX_PREFIX,
            rest_tier
                .fallback(route_not_found)
                .layer(Around(limits::Headers)),
        )
        .layer(Around(Challenge(state.clone())))
        .with_state(state)
}

/// A path under the ring that names no route: 404 `route_not_found`, after
/// spending a bucket like every other answer of the ring, so it carries the
/// `RateLimit-*` headers too (and probing for paths costs what any request
/// does).
async fn route_not_found(_admitted: rest::caller::Admitted) -> axum::http::StatusCode {
    axum::http::StatusCode::NOT_FOUND
}

/// Completes every 401's `WWW-Authenticate` with where the resource's
/// metadata lives (RFC 9728 §5.1), keeping what the error said about the token.
#[derive(Clone)]
struct Challenge(PartnerState);

impl Hook for Challenge {
    type Carry = ();

    fn before(&self, _: &mut Request) {}

    fn after(&self, (): (), response: &mut Response) {
        if response.status() == StatusCode::UNAUTHORIZED {
            challenge(&self.0, response);
        }
    }
}

fn challenge(state: &PartnerState, response: &mut Response) {
    let url = metadata::protected_resource_url(state);
    let value = match response.extensions_mut().get_mut::<Problem>() {
        Some(problem) => {
            let said = problem
                .headers
                .iter()
                .find(|(name, _)| name == header::WWW_AUTHENTICATE)
                .and_then(|(_, v)| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer"))
                .map(|rest| rest.trim().to_owned())
                .unwrap_or_default();
            problem
                .headers
                .retain(|(name, _)| name != header::WWW_AUTHENTICATE);
            if said.is_empty() {
                format!("Bearer resource_metadata=\"{url}\"")
            } else {
                format!("Bearer resource_metadata=\"{url}\", {said}")
            }
        }
        None => format!("Bearer resource_metadata=\"{url}\""),
    };
    if let Ok(v) = HeaderValue::from_str(&value) {
        match response.extensions_mut().get_mut::<Problem>() {
            Some(problem) => problem.headers.push((header::WWW_AUTHENTICATE, v)),
            None => {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
            }
        }
    }
}
