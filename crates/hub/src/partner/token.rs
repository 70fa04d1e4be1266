//! The token plane: `POST /oauth/token` (client-credentials grant),
//! `POST /oauth/introspect` (RFC 7662) and `POST /oauth/revoke` (RFC 7009).

use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::partner::project::{ACCESS_TOKEN_TTL_SECONDS, AccessClaims};
use lendhub_domain::partner::scope::{PartnerScopes, Scope};
use lendhub_http::json::Json;
use lendhub_http::oauth_form::{self, ClientCredentials};
use lendhub_store::{PartnerClientRecord, RevokedToken};
use serde::Serialize;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use utoipa::ToSchema;

use super::clients;
use super::error::PartnerError;
use super::limits::Slot;
use super::tokens;
use crate::partner::state::PartnerState;

/// The parameters every token-plane form may carry.
const FORM: &[&str] = &[
    "grant_type",
    "scope",
    "resource",
    "token",
    "token_type_hint",
    "client_id",
    "client_secret",
];

struct Request {
    form: HashMap<&'static str, String>,
    client: Arc<PartnerClientRecord>,
}

/// The form's parameters and the client credentials it or the headers carry.
fn read_form(
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(HashMap<&'static str, String>, ClientCredentials), PartnerError> {
    let has_content_type = headers.contains_key(header::CONTENT_TYPE);
    let form_error = |e| PartnerError::from_form(e, has_content_type);
    let mut form = oauth_form::parse(headers, body, FORM).map_err(form_error)?;
    let creds = oauth_form::client_credentials(headers, &mut form).map_err(form_error)?;
    Ok((form, creds))
}

/// Reads the form, authenticates the calling client and admits it under its
/// project's rate limit.
async fn authenticated(
    state: &PartnerState,
    slot: Option<&Slot>,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Request, PartnerError> {
    let (form, creds) = read_form(headers, body)?;
    let client = clients::authenticate(state, &creds).await?;
    state
        .limiter
        .admit(
            slot,
            &client.client_id,
            client.tier,
            None,
            state.clock.now_ms(),
        )
        .await?;
    Ok(Request { form, client })
}

fn no_store(body: impl IntoResponse) -> Response {
    (
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::PRAGMA, "no-cache"),
        ],
        body,
    )
        .into_response()
}

#[derive(Serialize, ToSchema)]
pub struct TokenResponse {
    access_token: String,
    #[schema(example = "Bearer")]
    token_type: &'static str,
    #[schema(example = 300)]
    expires_in: i64,
    #[schema(example = "mcp.read ops.read")]
    scope: String,
}

/// The token request (client-credentials grant).
#[derive(ToSchema)]
#[allow(dead_code)]
struct TokenForm {
    /// Must be `client_credentials`.
    grant_type: String,
    /// Space-delimited; omitted grants every scope the client holds. The
    /// seed's other spellings (`apply.write`, `payments:read`, …) are accepted.
    scope: Option<String>,
    /// RFC 8707: `{base_url}/sandbox/v1` for a token of the REST tier's test
    /// environment; omitted (or `{base_url}/partner/v1`) for live.
    resource: Option<String>,
    /// With `client_secret`, instead of HTTP Basic (`client_secret_post`).
    client_id: Option<String>,
    client_secret: Option<String>,
}

/// Issue an access token (client-credentials grant).
#[utoipa::path(post, operation_id = "token", path = "/oauth/token", tag = "oauth",
    request_body(content = TokenForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, body = TokenResponse),
        (status = 401, description = "missing_api_key or invalid_api_key"),
        (status = 403, description = "scope_not_granted or account_suspended"),
        (status = 422, description = "validation_failed: grant_type missing or unsupported")))]
pub async fn token(
    State(state): State<PartnerState>,
    slot: Option<Extension<Slot>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PartnerError> {
    let slot = slot.map(|Extension(s)| s);
    let Request { form, client } = authenticated(&state, slot.as_ref(), &headers, &body).await?;
    match form.get("grant_type").map(String::as_str) {
        None => return Err(PartnerError::invalid("grant_type", "required")),
        Some("client_credentials") => {}
        Some(_) => return Err(PartnerError::invalid("grant_type", "unsupported")),
    }
    let held = PartnerScopes::parse(&client.scopes).unwrap_or_default();
    let granted = match form
        .get("scope")
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
    {
        None => held,
        Some(requested) => {
            let requested =
                PartnerScopes::parse(requested).map_err(|u| PartnerError::ScopeNotGranted(u.0))?;
            if let Some(missing) = requested.iter().find(|s| !held.contains(*s)) {
                return Err(PartnerError::ScopeNotGranted(missing.as_str().to_owned()));
            }
            requested
        }
    };
    // RFC 8707: the REST tier's test environment is a resource of its own.
    let env = match form.get("resource").map(String::as_str) {
        None => Environment::Live,
        Some(r) => [Environment::Live, Environment::Test]
            .into_iter()
            .find(|env| r.trim_end_matches('/') == state.links.urls.environment(*env))
            .ok_or_else(|| PartnerError::invalid("resource", "unknown_resource"))?,
    };
    // The token names the OAuth client that asked for it, so that revoking
    // an additional client ends its tokens too.
    let (access_token, _) =
        tokens::issue(&state, client.oauth_client_id(), granted.render(), env).await?;
    Ok(no_store(Json(TokenResponse {
        access_token,
        token_type: "Bearer",
        expires_in: ACCESS_TOKEN_TTL_SECONDS,
        scope: granted.render(),
    })))
}

#[derive(ToSchema)]
#[allow(dead_code)]
struct TokenParam {
    token: String,
    token_type_hint: Option<String>,
}

/// Introspect an access token (RFC 7662). Only the caller's own tokens are
/// ever `active`.
#[utoipa::path(post, operation_id = "introspect", path = "/oauth/introspect", tag = "oauth",
    request_body(content = TokenParam, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, description = "`{\"active\": false}`, or the token's claims with `active: true`"),
        (status = 401, description = "missing_api_key or invalid_api_key"),
        (status = 422, description = "validation_failed: a parameter sent twice (`duplicate`), or `client_secret` beside HTTP Basic credentials (`conflicts_with_basic_authentication`)")))]
pub async fn introspect(
    State(state): State<PartnerState>,
    slot: Option<Extension<Slot>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PartnerError> {
    let slot = slot.map(|Extension(s)| s);
    let (form, creds) = read_form(&headers, &body)?;
    clients::require_live(&creds)?;
    // With the token's signature checked first (usually from the cache),
    // one lookup (usually from memory) answers both "is the caller who it
    // says" and "is the token revoked".
    let token = form.get("token");
    let claims = match token {
        None => None,
        Some(t) => match tokens::authentic(&state, t).await {
            Ok(c) => Some(c),
            Err(e @ (PartnerError::Unavailable(_) | PartnerError::Internal(_))) => return Err(e),
            Err(_) => None,
        },
    };
    let (stored, revoked) = match &claims {
        Some(c) => {
            state
                .directory
                .client_and_revocation(state.partners.as_ref(), &creds.client_id, &c.jti)
                .await?
        }
        None => (
            state
                .directory
                .client(state.partners.as_ref(), &creds.client_id)
                .await?,
            false,
        ),
    };
    let client = clients::check(
        state.secret_pepper.expose(),
        &creds,
        stored,
        state.clock.now_ms(),
    )?;
    state
        .limiter
        .admit(
            slot.as_ref(),
            &client.client_id,
            client.tier,
            None,
            state.clock.now_ms(),
        )
        .await?;
    if token.is_none() {
        return Err(PartnerError::invalid("token", "required"));
    }
    let inactive = || no_store(Json(json!({ "active": false })));
    // Only the caller's own live, unrevoked token is active; its partner is
    // the caller, just checked to be active. A partner's OAuth clients each
    // see their own tokens only, as separate clients would.
    let Some(c) = claims.filter(|c| c.client_id == client.oauth_client_id() && !revoked) else {
        return Ok(inactive());
    };
    if tokens::within_lifetime(&state, &c).is_err() {
        return Ok(inactive());
    }
    Ok(no_store(Json(Active::new(&c))))
}

/// RFC 7662 §2.2: an active token's answer, its members in this order.
#[derive(Serialize)]
struct Active<'a> {
    active: bool,
    scope: &'a str,
    client_id: &'a str,
    sub: &'a str,
    token_type: &'static str,
    exp: i64,
    iat: i64,
    nbf: i64,
    iss: &'a str,
    aud: &'a str,
    jti: &'a str,
}

impl<'a> Active<'a> {
    fn new(c: &'a AccessClaims) -> Self {
        Self {
            active: true,
            scope: &c.scope,
            client_id: &c.client_id,
            sub: &c.sub,
            token_type: "Bearer",
            exp: c.exp,
            iat: c.iat,
            nbf: c.nbf,
            iss: &c.iss,
            aud: &c.aud,
            jti: &c.jti,
        }
    }
}

/// Revoke an access token (RFC 7009). Answers 200 whatever the token was;
/// only the caller's own tokens are affected.
#[utoipa::path(post, operation_id = "revoke", path = "/oauth/revoke", tag = "oauth",
    request_body(content = TokenParam, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, description = "revoked, or nothing to revoke"),
        (status = 401, description = "missing_api_key or invalid_api_key"),
        (status = 422, description = "validation_failed: `token` missing (`required`), a parameter sent twice (`duplicate`), or `client_secret` beside HTTP Basic credentials (`conflicts_with_basic_authentication`)")))]
pub async fn revoke(
    State(state): State<PartnerState>,
    slot: Option<Extension<Slot>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PartnerError> {
    let slot = slot.map(|Extension(s)| s);
    let Request { form, client } = authenticated(&state, slot.as_ref(), &headers, &body).await?;
    let token = form
        .get("token")
        .ok_or_else(|| PartnerError::invalid("token", "required"))?;
    match tokens::authentic(&state, token).await {
        Ok(claims) if claims.client_id == client.oauth_client_id() => {
            state
                .partners
                .revoke_jwt(RevokedToken {
                    jti: claims.jti.clone(),
                    client_id: claims.client_id.clone(),
                    expires_at_ms: claims.exp * 1000,
                    revoked_at_ms: state.clock.now_ms(),
                })
                .await?;
            state.directory.forget();
        }
        Err(PartnerError::Unavailable(m)) => return Err(PartnerError::Unavailable(m)),
        Err(PartnerError::Internal(m)) => return Err(PartnerError::Internal(m)),
        // RFC 7009 §2.2: an invalid or foreign token is answered 200 all the same.
        _ => {}
    }
    Ok(no_store(()))
}
