//! `GET|POST /password/reset?token=…`: the page a reset mail links to. A
//! live link shows a form for the new password; a good one is set, the link
//! and every other link of the person's spent, and every session and token
//! of theirs ended, in one transaction: whoever knew the old password is
//! signed out everywhere. A used, expired or unknown link gets one page
//! that offers a new link.

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use lendhub_http::oauth_form;
use lendhub_store::SsoUserRecord;
use serde::Deserialize;

use super::{browser, new_password, posting_browser, refusal, token_hash, with_cookie};
use crate::cookies;
use crate::error::PageError;
use crate::pages::{PasswordChanged, PasswordReset, render};
use crate::session::csrf_token;
use crate::state::IdpState;

const CSRF_SUBJECT: &str = "password-reset";

#[derive(Deserialize)]
pub struct ResetQuery {
    token: Option<String>,
}

/// The person a live link resets, or the dead-link page.
async fn live(state: &IdpState, token: &str) -> Result<SsoUserRecord, PageError> {
    if token.is_empty() || token.len() > 64 {
        return Err(PageError::ResetLinkDead);
    }
    let reset = state.directory.password_reset(&token_hash(token)).await?;
    let now_ms = state.clock.now_ms();
    let user_id = reset
        .filter(|r| r.used_at_ms.is_none() && now_ms < r.expires_at_ms)
        .and_then(|r| r.user_id)
        .ok_or(PageError::ResetLinkDead)?;
    state
        .directory
        .sso_user(&user_id)
        .await?
        .ok_or(PageError::ResetLinkDead)
}

fn form_page(
    state: &IdpState,
    status: StatusCode,
    browser: &str,
    token: &str,
    error: Option<&str>,
) -> Response {
    render(
        status,
        &PasswordReset {
            csrf_token: &csrf_token(state, CSRF_SUBJECT, browser),
            token,
            error,
        },
    )
}

pub async fn show(
    State(state): State<IdpState>,
    headers: HeaderMap,
    Query(q): Query<ResetQuery>,
) -> Result<Response, PageError> {
    let token = q.token.unwrap_or_default();
    live(&state, &token).await?;
    let (browser, cookie) = browser(&state, &headers);
    let page = form_page(&state, StatusCode::OK, &browser, &token, None);
    Ok(with_cookie(page, cookie))
}

pub async fn submit(
    State(state): State<IdpState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    let mut form = oauth_form::parse(
        &headers,
        &body,
        &["csrf_token", "token", "password", "confirmation"],
    )
    .unwrap_or_default();
    let presented = form.remove("csrf_token").unwrap_or_default();
    let browser = posting_browser(&state, &headers, CSRF_SUBJECT, &presented)?;
    let token = form.remove("token").unwrap_or_default();
    let user = live(&state, &token).await?;
    let password = form.remove("password").unwrap_or_default();
    let confirmation = form.remove("confirmation").unwrap_or_default();
    if let Some(why) = refusal(&password, &confirmation) {
        return Ok(form_page(
            &state,
            StatusCode::UNPROCESSABLE_ENTITY,
            browser,
            &token,
            Some(why),
        ));
    }
    let change = new_password(&state, &user, password).await?;
    if !state
        .directory
        .reset_password(&token_hash(&token), change)
        .await?
    {
        // Spent by a concurrent reset, expired meanwhile, or the person was
        // disabled.
        return Err(PageError::ResetLinkDead);
    }
    state.grants.forget();
    let mut page = render(
        StatusCode::OK,
        &PasswordChanged {
            signed_out_everywhere: true,
        },
    );
    if let Some(clear) = cookies::clear(cookies::SESSION, state.urls.secure()) {
        page.headers_mut().append(header::SET_COOKIE, clear);
    }
    Ok(page)
}
