//! `POST /oauth/token`: the client-credentials grant. Credentials by HTTP Basic
//! or in the form body (not both); an opaque token whose hash alone is stored.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use lendhub_domain::credentials::{Environment, generate_access_token, secret_matches};
use lendhub_domain::scope::SandboxScopes;
use lendhub_store::{CommitError, TokenRecord, Write, WriteSet};
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

#[derive(ToSchema)]
#[allow(dead_code)]
struct TokenForm {
    /// Must be `client_credentials`.
    grant_type: String,
    /// Space-delimited; omitted grants every scope the client holds.
    scope: Option<String>,
    /// With `client_secret`, instead of HTTP Basic.
    client_id: Option<String>,
    client_secret: Option<String>,
}

struct Form {
    grant_type: Option<String>,
    scope: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
}

fn parse_form(headers: &HeaderMap, body: &[u8]) -> Result<Form, SandboxError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .eq_ignore_ascii_case("application/x-www-form-urlencoded")
    {
        return Err(SandboxError::InvalidRequest(
            "the body must be application/x-www-form-urlencoded".into(),
        ));
    }
    let mut form = Form {
        grant_type: None,
        scope: None,
        client_id: None,
        client_secret: None,
    };
    for (name, value) in form_urlencoded::parse(body) {
        let slot = match name.as_ref() {
            "grant_type" => &mut form.grant_type,
            "scope" => &mut form.scope,
            "client_id" => &mut form.client_id,
            "client_secret" => &mut form.client_secret,
            _ => continue,
        };
        if slot.is_some() {
            return Err(SandboxError::InvalidRequest(format!(
                "parameter {name} appears more than once"
            )));
        }
        *slot = Some(value.into_owned());
    }
    Ok(form)
}

fn basic_credentials(headers: &HeaderMap) -> Result<Option<(String, String)>, SandboxError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let bad = || SandboxError::InvalidClient {
        message: "malformed HTTP Basic credentials".into(),
        basic: true,
    };
    let value = value.to_str().map_err(|_| bad())?;
    let Some((scheme, encoded)) = value.split_once(' ') else {
        return Err(bad());
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(bad());
    }
    let decoded = STANDARD.decode(encoded.trim()).map_err(|_| bad())?;
    let decoded = String::from_utf8(decoded).map_err(|_| bad())?;
    let (id, secret) = decoded.split_once(':').ok_or_else(bad)?;
    // RFC 6749 §2.3.1: both parts are form-urlencoded before encoding.
    let unescape = |s: &str| {
        form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    Ok(Some((unescape(id), unescape(secret))))
}

/// Issue an access token (client-credentials grant).
#[utoipa::path(post, operation_id = "token", path = "/oauth/token", tag = "auth",
    request_body(content = TokenForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, body = TokenResponse),
        (status = 400, description = "invalid_request, unsupported_grant_type or invalid_scope", body = ErrorEnvelope),
        (status = 401, description = "invalid_client", body = ErrorEnvelope)))]
pub async fn issue(
    State(state): State<SandboxState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, SandboxError> {
    let form = parse_form(&headers, &body)?;
    let grant = form
        .grant_type
        .as_deref()
        .ok_or_else(|| SandboxError::InvalidRequest("grant_type is required".into()))?;
    if grant != "client_credentials" {
        return Err(SandboxError::UnsupportedGrantType);
    }
    let basic = basic_credentials(&headers)?;
    let (client_id, secret, via_basic) = match (basic, form.client_id, form.client_secret) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(SandboxError::InvalidRequest(
                "send client credentials by HTTP Basic or in the body, not both".into(),
            ));
        }
        (Some((id, secret)), None, None) => (id, secret, true),
        (None, Some(id), Some(secret)) => (id, secret, false),
        (None, _, _) => {
            return Err(SandboxError::InvalidClient {
                message: "client authentication is required".into(),
                basic: false,
            });
        }
    };
    let invalid = |message: &str| SandboxError::InvalidClient {
        message: message.into(),
        basic: via_basic,
    };
    if Environment::of_key(&client_id) == Some(Environment::Live)
        || Environment::of_key(&secret) == Some(Environment::Live)
    {
        return Err(invalid(
            "live keys (pk_live_/sk_live_) are not accepted by the sandbox; use your test keys",
        ));
    }
    let client = match state
        .clients
        .active(state.store.as_ref(), &client_id)
        .await?
    {
        Some(c) if secret_matches(&state.secret_pepper, &secret, &c.secret_hash) => c,
        _ => return Err(invalid("unknown client or wrong secret")),
    };
    let client_id = client.client_id.clone();
    let held = SandboxScopes::parse(&client.scopes).unwrap_or_default();
    let granted = match form
        .scope
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        None => held,
        Some(requested) => {
            let requested = SandboxScopes::parse(requested).map_err(|unknown| {
                SandboxError::InvalidScope(format!("unknown scope {unknown}"))
            })?;
            if !requested.is_subset(&held) {
                return Err(SandboxError::InvalidScope(
                    "the client does not hold every requested scope".into(),
                ));
            }
            requested
        }
    };
    let now = state.clock.now_ms();
    let issued = generate_access_token(now);
    let record = TokenRecord {
        selector: issued.selector,
        verifier_hash: issued.verifier_hash,
        client_id: client.client_id,
        scopes: granted.render(),
        expires_at_ms: now + state.token_ttl_seconds * 1000,
        created_at_ms: now,
    };
    let mut writes = WriteSet::default();
    writes.push(Write::InsertToken(record));
    match state.store.commit(writes).await {
        Ok(()) => {}
        // The store refuses tokens for a client revoked since we cached it.
        Err(CommitError::Conflict) => {
            state.clients.forget(&client_id);
            return Err(invalid("unknown client or wrong secret"));
        }
        Err(e) => return Err(e.into()),
    }
    let body = TokenResponse {
        access_token: issued.token,
        token_type: "Bearer",
        expires_in: state.token_ttl_seconds,
        scope: granted.render(),
    };
    Ok((
        StatusCode::OK,
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::PRAGMA, "no-cache"),
        ],
        axum::Json(body),
    )
        .into_response())
}
