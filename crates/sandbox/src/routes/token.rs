//! `POST /oauth/token`: the client-credentials grant. Credentials by HTTP Basic
//! or in the form body (not both); an opaque token, sealed and not stored
//! (`lendhub_domain::sandbox::token`), so issuing one writes nothing.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::partner::credentials::{Environment, secret_matches};
use lendhub_domain::partner::scope::SandboxScopes;
use lendhub_domain::sandbox::token::TokenClaims;
use lendhub_http::oauth_form::{self, AuthMethod, FormError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::SandboxError;
use crate::state::SandboxState;
use crate::views::ErrorEnvelope;

#[derive(Serialize, ToSchema)]
pub struct TokenResponse {
    access_token: String,
    #[schema(example = "Bearer")]
    token_type: &'static str,
    /// Seconds until the token expires.
    expires_in: i64,
    /// The scopes granted, space-delimited.
    scope: String,
}

fn form_error(e: FormError) -> SandboxError {
    match e {
        FormError::ContentType => SandboxError::InvalidRequest(
            "the body must be application/x-www-form-urlencoded".into(),
        ),
        FormError::Repeated(name) => {
            SandboxError::InvalidRequest(format!("parameter {name} appears more than once"))
        }
        FormError::MalformedBasic => SandboxError::InvalidClient {
            message: "malformed HTTP Basic credentials".into(),
            basic: true,
        },
        FormError::BothMethods => SandboxError::InvalidRequest(
            "send client credentials by HTTP Basic or in the body, not both".into(),
        ),
        FormError::MissingCredentials => SandboxError::InvalidClient {
            message: "client authentication is required".into(),
            basic: false,
        },
    }
}

/// Issue an access token (client-credentials grant).
#[utoipa::path(post, operation_id = "token", path = "/oauth/token", tag = "auth",
    request_body(content = lendhub_http::oauth_form::TokenForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, body = TokenResponse),
        (status = 400, description = "invalid_request, unsupported_grant_type or invalid_scope", body = ErrorEnvelope),
        (status = 401, description = "invalid_client", body = ErrorEnvelope)))]
pub async fn issue(
    State(state): State<SandboxState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, SandboxError> {
    let mut form = oauth_form::parse(
        &headers,
        &body,
        &["grant_type", "scope", "client_id", "client_secret"],
    )
    .map_err(form_error)?;
    let grant = form
        .get("grant_type")
        .ok_or_else(|| SandboxError::InvalidRequest("grant_type is required".into()))?;
    if grant != "client_credentials" {
        return Err(SandboxError::UnsupportedGrantType);
    }
    let credentials = oauth_form::client_credentials(&headers, &mut form).map_err(form_error)?;
    let (client_id, secret) = (credentials.client_id, credentials.client_secret);
    let via_basic = credentials.method == AuthMethod::Basic;
    let invalid = |message: &str| SandboxError::InvalidClient {
        message: message.into(),
        basic: via_basic,
    };
    if Environment::of_key(&client_id) == Some(Environment::Live)
        || Environment::of_key(secret.expose()) == Some(Environment::Live)
    {
        return Err(invalid(
            "live keys (pk_live_/sk_live_) are not accepted by the sandbox; use your test keys",
        ));
    }
    let client = match state
        .clients
        .active(state.sandbox.as_ref(), &client_id)
        .await?
    {
        Some(c)
            if secret_matches(
                state.secret_pepper.expose(),
                secret.expose(),
                &c.record.secret_hash,
            ) =>
        {
            c
        }
        _ => return Err(invalid("unknown client or wrong secret")),
    };
    let held = SandboxScopes::parse(&client.record.scopes).unwrap_or_default();
    let granted = granted_scopes(form.get("scope").map(String::as_str), held)?;
    let claims = TokenClaims {
        client_id: client.record.client_id.clone(),
        expires_at_ms: state.clock.now_ms() + state.token_ttl_seconds * 1000,
        scopes: granted,
    };
    Ok(token_response(TokenResponse {
        access_token: state
            .token_seal
            .seal(&claims, lendhub_system::random_bytes()),
        token_type: "Bearer",
        expires_in: state.token_ttl_seconds,
        scope: claims.scopes.render(),
    }))
}

/// What the token grants: every scope the client holds, or the requested
/// ones when it holds them all.
fn granted_scopes(
    requested: Option<&str>,
    held: SandboxScopes,
) -> Result<SandboxScopes, SandboxError> {
    let Some(requested) = requested.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(held);
    };
    let requested = SandboxScopes::parse(requested)
        .map_err(|unknown| SandboxError::InvalidScope(format!("unknown scope {unknown}")))?;
    if !requested.is_subset(&held) {
        return Err(SandboxError::InvalidScope(
            "the client does not hold every requested scope".into(),
        ));
    }
    Ok(requested)
}

/// A token answer is never cached (RFC 6749 §5.1).
fn token_response(body: TokenResponse) -> Response {
    (
        StatusCode::OK,
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::PRAGMA, "no-cache"),
        ],
        lendhub_http::json::Json(body),
    )
        .into_response()
}
