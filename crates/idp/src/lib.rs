//! The identity provider (hub seed 001, Authentication → Identity provider;
//! issue 6): OpenID Connect with the authorization code flow and PKCE (S256)
//! for every client, ES256 ID tokens, server-rendered sign-in and consent
//! pages, refresh-token rotation with reuse detection, UserInfo and
//! RP-initiated logout. It runs on its own listener (`sso.addr`); its issuer
//! is `sso.public_url`.
//!
//! Every route is wired here, one handler module per endpoint.

mod authorize;
pub mod clients;
mod consent;
mod cookies;
mod discovery;
mod end_session;
mod error;
mod flow;
pub mod grants;
mod id_token;
pub mod keys;
mod pages;
mod password;
mod redirect;
mod session;
mod sign_in;
mod state;
mod throttle;
mod token;
mod userinfo;
pub mod users;

use axum::Router;
use axum::routing::get;

pub use error::finish as finish_errors;
pub use id_token::IdClaims;
pub use keys::{KeyRing, SSO_KEYS};
pub use state::{IdpState, Urls};

/// The provider's routes. Wrap them in `finish_errors` (outside any layer
/// that may answer without a body, such as a timeout).
pub fn router(state: IdpState) -> Router {
    Router::new()
        .route(
            "/.well-known/openid-configuration",
            get(discovery::openid_configuration),
        )
        .route("/.well-known/jwks.json", get(discovery::jwks))
        .route(
            "/authorize",
            get(authorize::authorize).post(authorize::authorize_post),
        )
        .route("/sign-in", get(sign_in::show).post(sign_in::submit))
        .route("/consent", get(consent::show).post(consent::submit))
        .route(
            "/password/forgot",
            get(password::forgot::show).post(password::forgot::submit),
        )
        .route(
            "/password/reset",
            get(password::reset::show).post(password::reset::submit),
        )
        .route(
            "/password/change",
            get(password::change::show).post(password::change::submit),
        )
        .route("/token", axum::routing::post(token::token))
        .route(
            "/userinfo",
            get(userinfo::userinfo).post(userinfo::userinfo_post),
        )
        .route(
            "/end-session",
            get(end_session::get).post(end_session::post),
        )
        // Every form and token request is a few hundred bytes.
        .layer(axum::extract::DefaultBodyLimit::max(64 * 1024))
        .layer(axum::middleware::from_fn(error::security_headers))
        .with_state(state)
}
