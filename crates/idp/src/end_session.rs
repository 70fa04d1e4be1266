//! `GET|POST /end-session`: OpenID Connect RP-Initiated Logout 1.0. The
//! client sends the browser here with `id_token_hint` (an ID token we
//! issued, expired or not), optionally `post_logout_redirect_uri` (exactly
//! one it registered) and `state`. The browser's session ends, every token
//! family issued under it is revoked, the session cookie is cleared, and the
//! browser goes back to the client (or sees a "signed out" page).
//!
//! Without a valid `id_token_hint` nobody vouches for the request, so the
//! person is asked to confirm on a page whose form carries a CSRF token.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use lendhub_domain::partner::credentials::parse_access_token;
use lendhub_http::oauth_form;

use crate::cookies;
use crate::error::PageError;
use crate::id_token;
use crate::pages::{EndSession, SignedOut, render};
use crate::redirect;
use crate::session::{csrf_token, csrf_valid};
use crate::state::IdpState;

const PARAMS: &[&str] = &[
    "id_token_hint",
    "post_logout_redirect_uri",
    "state",
    "client_id",
    "csrf_token",
];

/// Where to send the browser afterwards, if anywhere, once the request is
/// known to be well-formed; and whether an ID token vouches for it.
struct Checked {
    target: Option<String>,
    vouched: bool,
}

async fn check(state: &IdpState, p: &HashMap<&'static str, String>) -> Result<Checked, PageError> {
    let get = |n: &str| p.get(n).map(String::as_str).filter(|v| !v.is_empty());
    let hint = match get("id_token_hint") {
        None => None,
        Some(token) => Some(id_token::verify_hint(state, token).await?.ok_or(
            PageError::InvalidLogout("id_token_hint is not an ID token we issued"),
        )?),
    };
    let client_id = match (get("client_id"), &hint) {
        (Some(id), Some(h)) if id != h.aud => {
            return Err(PageError::InvalidLogout(
                "client_id is not the audience of id_token_hint",
            ));
        }
        (Some(id), _) => Some(id.to_owned()),
        (None, Some(h)) => Some(h.aud.clone()),
        (None, None) => None,
    };
    let target = match get("post_logout_redirect_uri") {
        None => None,
        Some(uri) => {
            let Some(client_id) = &client_id else {
                return Err(PageError::InvalidLogout(
                    "post_logout_redirect_uri needs id_token_hint or client_id",
                ));
            };
            let client = state
                .directory
                .sso_client(client_id)
                .await?
                .ok_or(PageError::InvalidLogout("unknown client"))?;
            if !client.post_logout_redirect_uris.iter().any(|r| r == uri) {
                return Err(PageError::InvalidLogout(
                    "post_logout_redirect_uri is not registered for this client",
                ));
            }
            Some(uri.to_owned())
        }
    };
    Ok(Checked {
        target,
        vouched: hint.is_some(),
    })
}

/// Ends the browser's session (if it has one), clears its cookie, and says goodbye.
async fn sign_out(
    state: &IdpState,
    headers: &HeaderMap,
    checked: Checked,
    client_state: Option<&str>,
) -> Result<Response, PageError> {
    if let Some((selector, _)) =
        cookies::get(headers, cookies::SESSION).and_then(parse_access_token)
    {
        state
            .sign_ins
            .end_session(&selector, state.clock.now_ms())
            .await?;
        state.grants.forget();
    }
    let mut response = match checked.target {
        Some(uri) => {
            let pairs: Vec<(&str, String)> = client_state
                .map(|s| vec![("state", s.to_owned())])
                .unwrap_or_default();
            redirect::to_client(&uri, &pairs)
        }
        None => render(StatusCode::OK, &SignedOut),
    };
    if let Some(clear) = cookies::clear(cookies::SESSION, state.urls.secure()) {
        response.headers_mut().append(header::SET_COOKIE, clear);
    }
    Ok(response)
}

pub async fn get(
    State(state): State<IdpState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response, PageError> {
    let p: HashMap<&'static str, String> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes())
            .filter_map(|(k, v)| {
                PARAMS
                    .iter()
                    .find(|p| **p == k)
                    .map(|p| (*p, v.into_owned()))
            })
            .collect();
    let checked = check(&state, &p).await?;
    let client_state = p.get("state").map(String::as_str);
    let browser = cookies::get(&headers, cookies::BROWSER);
    let has_session = cookies::get(&headers, cookies::SESSION).is_some();
    match (checked.vouched, browser) {
        // Vouched for by the client, or nothing to sign out of: no question to ask.
        (true, _) | (false, None) => sign_out(&state, &headers, checked, client_state).await,
        (false, Some(_)) if !has_session => sign_out(&state, &headers, checked, client_state).await,
        (false, Some(browser)) => Ok(render(
            StatusCode::OK,
            &EndSession {
                csrf_token: &csrf_token(&state, "logout", browser),
                client_id: p.get("client_id").map(String::as_str),
                post_logout_redirect_uri: checked.target.as_deref(),
                state: client_state,
            },
        )),
    }
}

pub async fn post(
    State(state): State<IdpState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    let p = oauth_form::parse(&headers, &body, PARAMS).unwrap_or_default();
    let checked = check(&state, &p).await?;
    if !checked.vouched {
        let confirmed = match (
            cookies::get(&headers, cookies::BROWSER),
            p.get("csrf_token"),
        ) {
            (Some(browser), Some(token)) => csrf_valid(&state, "logout", browser, token),
            _ => false,
        };
        if !confirmed {
            return Err(PageError::CsrfInvalid { restart: None });
        }
    }
    let client_state = p.get("state").map(String::as_str);
    sign_out(&state, &headers, checked, client_state).await
}
