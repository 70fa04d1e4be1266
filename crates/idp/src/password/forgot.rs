//! `GET|POST /password/forgot`: asks for an e-mail address and sends it a
//! single-use link to choose a new password, valid for 30 minutes.
//!
//! The answer is the same page whether or not the address has an account,
//! and both ways cost one write (a request row, with the mail only when an
//! account matched), so neither the wording, the status nor the timing
//! tells who has an account. Requests are throttled per address typed and
//! per client address like sign-in guesses, which also bounds how much mail
//! one person can make another receive.

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use lendhub_domain::identity::claims::{PASSWORD_RESET_TTL_MS, normalise_email};
use lendhub_http::oauth_form;
use lendhub_store::PasswordResetRecord;
use lendhub_system::random_token;
use serde::Deserialize;

use super::{browser, mail, posting_browser, token_hash, with_cookie};
use crate::error::PageError;
use crate::pages::{PasswordForgot, PasswordSent, render};
use crate::session::csrf_token;
use crate::sign_in::ClientAddress;
use crate::state::IdpState;
use crate::throttle::Wait;

const CSRF_SUBJECT: &str = "password-forgot";

#[derive(Deserialize)]
pub struct ForgotQuery {
    ticket: Option<String>,
}

/// A sign-in transaction to go back to, if the id could be one.
fn ticket(raw: Option<&str>) -> Option<&str> {
    raw.filter(|t| {
        !t.is_empty()
            && t.len() <= 64
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

fn form_page(
    state: &IdpState,
    status: StatusCode,
    browser: &str,
    ticket: Option<&str>,
    email: &str,
    error: Option<&str>,
) -> Response {
    render(
        status,
        &PasswordForgot {
            csrf_token: &csrf_token(state, CSRF_SUBJECT, browser),
            ticket,
            email,
            error,
        },
    )
}

pub async fn show(
    State(state): State<IdpState>,
    headers: HeaderMap,
    Query(q): Query<ForgotQuery>,
) -> Response {
    let (browser, cookie) = browser(&state, &headers);
    let page = form_page(
        &state,
        StatusCode::OK,
        &browser,
        ticket(q.ticket.as_deref()),
        "",
        None,
    );
    with_cookie(page, cookie)
}

pub async fn submit(
    State(state): State<IdpState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    let form =
        oauth_form::parse(&headers, &body, &["csrf_token", "email", "ticket"]).unwrap_or_default();
    let field = |name: &str| form.get(name).map(String::as_str).unwrap_or_default();
    let browser = posting_browser(&state, &headers, CSRF_SUBJECT, field("csrf_token"))?;
    let ticket = ticket(form.get("ticket").map(String::as_str));
    let email = field("email").trim();
    if email.is_empty() || email.len() > 254 || !email.contains('@') {
        return Ok(form_page(
            &state,
            StatusCode::UNPROCESSABLE_ENTITY,
            browser,
            ticket,
            email,
            Some("Enter your email address, like name@example.com."),
        ));
    }
    let normalised = normalise_email(email);
    let now_ms = state.clock.now_ms();
    if let Err(wait_ms) = state.reset_throttle.attempt(&normalised, address, now_ms) {
        let wait = Wait::new(wait_ms);
        let message = wait.message("Too many requests for a link.");
        let page = form_page(
            &state,
            StatusCode::TOO_MANY_REQUESTS,
            browser,
            ticket,
            email,
            Some(&message),
        );
        return Ok(wait.stamp(page));
    }

    let user = state.directory.sso_user_by_email(&normalised).await?;
    let (token, user_id) = match &user {
        Some(u) => (Some(random_token(32)), Some(u.user_id.clone())),
        None => (None, None),
    };
    let reset = PasswordResetRecord {
        reset_id: format!("pwr_{}", random_token(16)),
        token_hash: token.as_deref().map(token_hash),
        user_id,
        created_at_ms: now_ms,
        expires_at_ms: now_ms + PASSWORD_RESET_TTL_MS,
        used_at_ms: None,
    };
    let link_mail = user.as_ref().zip(token.as_deref()).map(|(u, token)| {
        let link = format!("{}?token={token}", state.urls.endpoint("/password/reset"));
        mail(
            &u.email,
            "Reset your lendhub password",
            format!(
                "Someone, probably you, asked to reset the password of your lendhub \
                 account ({}).\n\n\
                 Choose a new password here within 30 minutes:\n{link}\n\n\
                 The link works once. If you did not ask, ignore this mail: your \
                 password has not changed.\n",
                u.email
            ),
            now_ms,
        )
    });
    state
        .directory
        .request_password_reset(reset, link_mail)
        .await?;
    let sign_in = ticket.map(|t| format!("/sign-in?ticket={t}"));
    Ok(render(
        StatusCode::OK,
        &PasswordSent {
            email,
            sign_in: sign_in.as_deref(),
        },
    ))
}
