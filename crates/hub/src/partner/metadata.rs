//! Discovery: the authorization-server metadata (RFC 8414), the
//! protected-resource metadata (RFC 9728) and the JWKS. The two metadata
//! documents name each other: the resource's `authorization_servers` is the
//! issuer, whose `jwks_uri` and endpoints live under the resource.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use lendhub_domain::partner::scope::{PartnerScope, Scope};
use serde_json::{Value, json};

use super::error::PartnerError;
use crate::partner::state::PartnerState;

fn scopes() -> Vec<&'static str> {
    PartnerScope::ALL.iter().map(|s| s.as_str()).collect()
}

pub fn protected_resource_url(state: &PartnerState) -> String {
    format!(
        "{}/.well-known/oauth-protected-resource",
        state.links.urls.base
    )
}

pub async fn authorization_server(State(state): State<PartnerState>) -> Json<Value> {
    let partner = state.links.urls.partner();
    let auth_methods = ["client_secret_basic", "client_secret_post"];
    Json(json!({
        "issuer": state.links.urls.issuer(),
        "token_endpoint": format!("{partner}/oauth/token"),
        "jwks_uri": format!("{partner}/oauth/jwks"),
        "introspection_endpoint": format!("{partner}/oauth/introspect"),
        "revocation_endpoint": format!("{partner}/oauth/revoke"),
        "scopes_supported": scopes(),
        "response_types_supported": [],
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": auth_methods,
        "introspection_endpoint_auth_methods_supported": auth_methods,
        "revocation_endpoint_auth_methods_supported": auth_methods,
        "service_documentation": format!("{partner}/auth.md"),
        "protected_resources": [partner],
    }))
}

pub async fn protected_resource(State(state): State<PartnerState>) -> Json<Value> {
    let partner = state.links.urls.partner();
    Json(json!({
        "resource": partner,
        "authorization_servers": [state.links.urls.issuer()],
        "jwks_uri": format!("{partner}/oauth/jwks"),
        "scopes_supported": scopes(),
        "bearer_methods_supported": ["header"],
        "resource_signing_alg_values_supported": ["EdDSA"],
        "resource_name": "lendhub partner ring",
        "resource_documentation": format!("{partner}/auth.md"),
    }))
}

/// The public keys that verify partner access tokens: the current and the previous.
#[utoipa::path(get, operation_id = "jwks", path = "/oauth/jwks", tag = "oauth",
    responses((status = 200, description = "JSON Web Key Set (Ed25519 keys, `alg` EdDSA)")))]
pub async fn jwks(State(state): State<PartnerState>) -> Result<Response, PartnerError> {
    let keys = state.keys.jwks(state.key_store.as_ref()).await?;
    Ok(([(header::CACHE_CONTROL, "public, max-age=300")], Json(keys)).into_response())
}
