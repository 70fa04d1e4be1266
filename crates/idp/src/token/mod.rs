//! `POST /token` (RFC 6749 §3.2): authenticates the client, then hands the
//! request to its grant, one file per grant type. Errors are RFC 6749 §5.2
//! bodies (`error::TokenError`).

mod authorization_code;
mod refresh_token;

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::identity::claims::{ACCESS_TOKEN_TTL_S, REFRESH_TOKEN_TTL_S};
use lendhub_http::access_log::CallerSlot;
use lendhub_http::json::Json;
use lendhub_http::oauth_form::{self, FormError};
use lendhub_store::{IssuedTokens, TokenKey};
use lendhub_system::generate_access_token;
use serde::Serialize;

use crate::clients;
use crate::error::TokenError;
use crate::state::IdpState;

/// Every parameter either grant reads.
const FORM: &[&str] = &[
    "grant_type",
    "code",
    "redirect_uri",
    "code_verifier",
    "refresh_token",
    "scope",
    "client_id",
    "client_secret",
];

#[derive(Serialize)]
pub struct TokenResponse {
    token_type: &'static str,
    expires_in: i64,
    access_token: String,
    refresh_token: String,
    id_token: String,
    scope: String,
}

/// A new access token and refresh token, in clear (for the response) and as
/// the store keeps them.
pub struct Minted {
    pub access_token: String,
    pub refresh_token: String,
    pub stored: IssuedTokens,
}

pub fn mint(now_ms: i64, access_scope: Option<String>) -> Minted {
    let access = generate_access_token(now_ms);
    let refresh = generate_access_token(now_ms);
    Minted {
        stored: IssuedTokens {
            access: TokenKey {
                selector: access.selector.to_vec(),
                verifier_hash: access.verifier_hash.to_vec(),
                expires_at_ms: now_ms + ACCESS_TOKEN_TTL_S * 1000,
            },
            access_scope,
            refresh: TokenKey {
                selector: refresh.selector.to_vec(),
                verifier_hash: refresh.verifier_hash.to_vec(),
                expires_at_ms: now_ms + REFRESH_TOKEN_TTL_S * 1000,
            },
        },
        access_token: access.token,
        refresh_token: refresh.token,
    }
}

pub fn respond(minted: Minted, id_token: String, scope: String) -> Response {
    (
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::PRAGMA, "no-cache"),
        ],
        Json(TokenResponse {
            token_type: "Bearer",
            expires_in: ACCESS_TOKEN_TTL_S,
            access_token: minted.access_token,
            refresh_token: minted.refresh_token,
            id_token,
            scope,
        }),
    )
        .into_response()
}

/// A required form parameter.
pub fn required<'a>(
    form: &'a HashMap<&'static str, String>,
    name: &str,
) -> Result<&'a str, TokenError> {
    form.get(name)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| TokenError::InvalidRequest(format!("{name} is required")))
}

pub async fn token(
    State(state): State<IdpState>,
    caller: Option<Extension<CallerSlot>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, TokenError> {
    let mut form = oauth_form::parse(&headers, &body, FORM).map_err(|e| match e {
        FormError::Repeated(name) => {
            TokenError::InvalidRequest(format!("the parameter {name} appears more than once"))
        }
        _ => {
            TokenError::InvalidRequest("the body must be application/x-www-form-urlencoded".into())
        }
    })?;
    let client = clients::authenticate(
        state.directory.as_ref(),
        &state.grants,
        state.secret_pepper.expose(),
        &headers,
        &mut form,
    )
    .await?;
    if let Some(Extension(slot)) = caller {
        slot.set(&client.client_id);
    }
    match form.get("grant_type").map(String::as_str) {
        None | Some("") => Err(TokenError::InvalidRequest("grant_type is required".into())),
        Some("authorization_code") => authorization_code::grant(&state, &client, &form).await,
        Some("refresh_token") => refresh_token::grant(&state, &client, &form).await,
        Some(_) => Err(TokenError::UnsupportedGrantType),
    }
}
