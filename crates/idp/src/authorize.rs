//! `GET /authorize` (OpenID Connect Core §3.1.2): validates the request,
//! then either answers at once (a live session that already consented, or
//! `prompt=none`) or opens a sign-in transaction and sends the browser to
//! the sign-in or consent page.
//!
//! Until the client and its redirect URI are known to be good, every error
//! is a page; after that, every error goes back to the redirect URI.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, header};
use axum::response::Response;
use lendhub_domain::identity::claims::{
    IdentityScopes, Prompt, ScopeRequestError, TICKET_TTL_MS, requested_scopes, within_max_age,
};
use lendhub_domain::identity::pkce::challenge_is_valid;
use lendhub_store::{SsoClientRecord, TicketRecord};
use lendhub_system::random_token;

use crate::cookies;
use crate::error::{AuthorizeErrorCode, IdpError, PageError, RedirectError};
use crate::flow::{Authorization, complete, consented};
use crate::redirect;
use crate::session;
use crate::state::IdpState;

const MAX_STATE: usize = 2048;
const MAX_NONCE: usize = 512;
const MAX_LOGIN_HINT: usize = 254;

/// The query's parameters, and the first one that appeared more than once
/// (RFC 6749 §3.1: parameters must not be repeated).
fn parameters(query: Option<&str>) -> (HashMap<String, String>, Option<String>) {
    let mut params = HashMap::new();
    let mut repeated = None;
    for (name, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if params
            .insert(name.to_string(), value.into_owned())
            .is_some()
            && repeated.is_none()
        {
            repeated = Some(name.into_owned());
        }
    }
    (params, repeated)
}

/// A validated authorization request.
struct Valid {
    client: std::sync::Arc<SsoClientRecord>,
    redirect_uri: String,
    scopes: IdentityScopes,
    state: String,
    nonce: Option<String>,
    code_challenge: String,
    prompt: Prompt,
    max_age: Option<i64>,
    login_hint: Option<String>,
}

// Long on purpose: the order of these checks is the protocol's (OIDC Core
// §3.1.2.2, RFC 6749 §4.1.2.1) — what may redirect an error to the client
// depends on what has been verified before it — and reads best in one place.
async fn validate(state: &IdpState, query: Option<&str>) -> Result<Valid, IdpError> {
    let (params, repeated) = parameters(query);
    let get = |name: &str| {
        params
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    };
    let is_repeated = |name: &str| repeated.as_deref() == Some(name);

    // 1. Who is asking, and where the answer may go: a page if either is wrong.
    let client_id = get("client_id").filter(|_| !is_repeated("client_id"));
    let client = match client_id {
        Some(id) => state
            .grants
            .client(state.directory.as_ref(), id)
            .await
            .map_err(PageError::from)?,
        None => None,
    };
    let client = client.ok_or(PageError::UnknownClient)?;
    let redirect_uri = get("redirect_uri")
        .filter(|_| !is_repeated("redirect_uri"))
        .filter(|uri| client.redirect_uris.iter().any(|r| r == uri))
        .ok_or(PageError::RedirectUriMismatch)?
        .to_owned();

    // 2. Everything else is answered at the redirect URI.
    let client_state = get("state").map(str::to_owned);
    let refuse = |code: AuthorizeErrorCode, description: &str| {
        IdpError::Redirect(RedirectError {
            redirect_uri: redirect_uri.clone(),
            state: client_state.clone().filter(|s| s.len() <= MAX_STATE),
            issuer: state.urls.issuer.clone(),
            code,
            description: description.to_owned(),
        })
    };
    use AuthorizeErrorCode::*;
    if let Some(name) = &repeated {
        return Err(refuse(
            InvalidRequest,
            &format!("the parameter {name} appears more than once"),
        ));
    }
    if params.contains_key("request") {
        return Err(refuse(
            RequestNotSupported,
            "request objects are not supported",
        ));
    }
    if params.contains_key("request_uri") {
        return Err(refuse(
            RequestUriNotSupported,
            "request_uri is not supported",
        ));
    }
    match get("response_type") {
        None => return Err(refuse(InvalidRequest, "response_type is required")),
        Some("code") => {}
        Some(_) => {
            return Err(refuse(
                UnsupportedResponseType,
                "only response_type=code is supported (the implicit and hybrid flows are not)",
            ));
        }
    }
    if get("response_mode").is_some_and(|m| m != "query") {
        return Err(refuse(
            InvalidRequest,
            "only response_mode=query is supported",
        ));
    }
    let Some(client_state) = client_state.clone() else {
        return Err(refuse(InvalidRequest, "state is required"));
    };
    if client_state.len() > MAX_STATE {
        return Err(refuse(
            InvalidRequest,
            "state is longer than 2048 characters",
        ));
    }
    let scopes = match requested_scopes(get("scope")) {
        Ok(s) => s,
        Err(ScopeRequestError::Missing) => return Err(refuse(InvalidRequest, "scope is required")),
        Err(ScopeRequestError::NoOpenId) => {
            return Err(refuse(InvalidScope, "scope must include openid"));
        }
    };
    let Some(code_challenge) = get("code_challenge") else {
        return Err(refuse(
            InvalidRequest,
            "code_challenge is required (PKCE with S256)",
        ));
    };
    match get("code_challenge_method") {
        Some("S256") => {}
        None => {
            return Err(refuse(
                InvalidRequest,
                "code_challenge_method is required and must be S256",
            ));
        }
        Some(_) => {
            return Err(refuse(
                InvalidRequest,
                "transform algorithm not supported: code_challenge_method must be S256",
            ));
        }
    }
    if !challenge_is_valid(code_challenge) {
        return Err(refuse(
            InvalidRequest,
            "code_challenge must be the base64url SHA-256 of the code_verifier (43 characters)",
        ));
    }
    let nonce = get("nonce").map(str::to_owned);
    if nonce.as_ref().is_some_and(|n| n.len() > MAX_NONCE) {
        return Err(refuse(
            InvalidRequest,
            "nonce is longer than 512 characters",
        ));
    }
    let prompt =
        Prompt::parse(get("prompt")).map_err(|why| refuse(InvalidRequest, &why.to_string()))?;
    let max_age = match get("max_age") {
        None => None,
        Some(raw) => match raw.parse::<i64>() {
            Ok(age) if age >= 0 => Some(age),
            _ => {
                return Err(refuse(
                    InvalidRequest,
                    "max_age must be a non-negative number of seconds",
                ));
            }
        },
    };
    Ok(Valid {
        client,
        redirect_uri,
        scopes,
        state: client_state,
        nonce,
        code_challenge: code_challenge.to_owned(),
        prompt,
        max_age,
        login_hint: get("login_hint")
            .filter(|h| h.len() <= MAX_LOGIN_HINT)
            .map(str::to_owned),
    })
}

pub async fn authorize(
    State(state): State<IdpState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response, IdpError> {
    respond(&state, &headers, query.as_deref()).await
}

/// The same request sent as a form POST (OpenID Connect Core §3.1.2.1: the
/// provider must accept both). A body that is not a form carries no
/// parameters, so it is answered as an unknown client.
pub async fn authorize_post(
    State(state): State<IdpState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, IdpError> {
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    let params = if form {
        std::str::from_utf8(&body).ok()
    } else {
        None
    };
    respond(&state, &headers, params).await
}

// The prompt/max_age/session decision table of OIDC Core §3.1.2.3, in one
// place for the same reason as `validate`.
async fn respond(
    state: &IdpState,
    headers: &HeaderMap,
    query: Option<&str>,
) -> Result<Response, IdpError> {
    let state = state.clone();
    let v = validate(&state, query).await?;
    let now = state.clock.now_ms();
    let scope = v.scopes.render();
    let session = session::current(&state, headers)
        .await
        .map_err(PageError::from)?
        .filter(|s| within_max_age(s.auth_time_ms, v.max_age, now));

    let refuse = |code: AuthorizeErrorCode, description: &str| {
        IdpError::Redirect(RedirectError {
            redirect_uri: v.redirect_uri.clone(),
            state: Some(v.state.clone()),
            issuer: state.urls.issuer.clone(),
            code,
            description: description.to_owned(),
        })
    };
    let signed_in = match &session {
        Some(s) if !v.prompt.login => Some(s),
        _ => None,
    };
    let agreed = match signed_in {
        Some(s) if !v.prompt.consent => {
            consented(&state, &s.user_id, &v.client.client_id, &scope).await?
        }
        _ => false,
    };
    if v.prompt.none {
        let Some(s) = signed_in else {
            return Err(refuse(
                AuthorizeErrorCode::LoginRequired,
                "the person is not signed in (or not recently enough for max_age)",
            ));
        };
        if !agreed {
            return Err(refuse(
                AuthorizeErrorCode::ConsentRequired,
                "the person has not approved these scopes for this client",
            ));
        }
        return complete_now(&state, &v, scope, s).await;
    }
    if let (Some(s), true) = (signed_in, agreed) {
        return complete_now(&state, &v, scope, s).await;
    }

    // A sign-in transaction, bound to this browser.
    let (browser, new_browser) = match cookies::get(headers, cookies::BROWSER) {
        Some(b) if b.len() <= 64 => (b.to_owned(), false),
        _ => (random_token(32), true),
    };
    let ticket = TicketRecord {
        ticket_id: random_token(24),
        client_id: v.client.client_id.clone(),
        redirect_uri: v.redirect_uri.clone(),
        scope,
        state: v.state.clone(),
        nonce: v.nonce.clone(),
        code_challenge: v.code_challenge.clone(),
        prompt: v.prompt.render(),
        max_age: v.max_age,
        login_hint: v.login_hint.clone(),
        browser_hash: cookies::browser_hash(&browser),
        user_id: signed_in.map(|s| s.user_id.clone()),
        auth_time_ms: signed_in.map(|s| s.auth_time_ms),
        session_selector: signed_in.map(|s| s.selector.clone()),
        created_at_ms: now,
        expires_at_ms: now + TICKET_TTL_MS,
    };
    state
        .sign_ins
        .insert_ticket(ticket.clone())
        .await
        .map_err(PageError::from)?;
    let page = if signed_in.is_some() {
        "/consent"
    } else {
        "/sign-in"
    };
    let mut response = redirect::to_page(page, &[("ticket", ticket.ticket_id)]);
    if new_browser
        && let Some(cookie) = cookies::set(cookies::BROWSER, &browser, state.urls.secure())
    {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    Ok(response)
}

async fn complete_now(
    state: &IdpState,
    v: &Valid,
    scope: String,
    session: &lendhub_store::SessionRecord,
) -> Result<Response, IdpError> {
    let authorization = Authorization {
        client_id: v.client.client_id.clone(),
        redirect_uri: v.redirect_uri.clone(),
        scope,
        state: v.state.clone(),
        nonce: v.nonce.clone(),
        code_challenge: v.code_challenge.clone(),
        user_id: session.user_id.clone(),
        auth_time_ms: session.auth_time_ms,
        session_selector: Some(session.selector.clone()),
    };
    Ok(complete(state, authorization, None, None).await?)
}
