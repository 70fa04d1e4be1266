//! `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3)
//! and `GET /.well-known/jwks.json`.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use lendhub_domain::identity::claims::{IdentityScope, claims_supported};
use lendhub_domain::partner::scope::Scope;
use serde_json::{Value, json};

use crate::error::PageError;
use crate::state::IdpState;

pub fn document(state: &IdpState) -> Value {
    let u = &state.urls;
    let scopes: Vec<&str> = IdentityScope::ALL.iter().map(|s| s.as_str()).collect();
    json!({
        "issuer": u.issuer,
        "authorization_endpoint": u.endpoint("/authorize"),
        "token_endpoint": u.endpoint("/token"),
        "userinfo_endpoint": u.endpoint("/userinfo"),
        "jwks_uri": u.endpoint("/.well-known/jwks.json"),
        "end_session_endpoint": u.endpoint("/end-session"),
        "scopes_supported": scopes,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["ES256"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "claims_supported": claims_supported(),
        "claims_parameter_supported": false,
        "request_parameter_supported": false,
        "request_uri_parameter_supported": false,
        "prompt_values_supported": ["none", "login", "consent"],
        "authorization_response_iss_parameter_supported": true,
    })
}

pub async fn openid_configuration(State(state): State<IdpState>) -> Response {
    (
        [(header::CACHE_CONTROL, "public, max-age=300")],
        Json(document(&state)),
    )
        .into_response()
}

/// The public keys that verify ID tokens: the current and the previous.
pub async fn jwks(State(state): State<IdpState>) -> Result<Response, PageError> {
    let keys = state.keys.jwks(state.key_store.as_ref()).await?;
    Ok((
        [
            (header::CACHE_CONTROL, "public, max-age=300"),
            (header::CONTENT_TYPE, "application/json"),
        ],
        Json(keys),
    )
        .into_response())
}
