//! `GET|POST /password/change`: a signed-in person changes their password,
//! giving the current one. The current password is a guess like any other,
//! so it goes through the sign-in throttle. A change keeps this browser's
//! session and the tokens issued under it, and ends every other session and
//! token family of theirs in the same transaction.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use lendhub_http::oauth_form;
use lendhub_store::{SessionRecord, SsoUserRecord};

use super::{browser, new_password, posting_browser, refusal, with_cookie};
use crate::error::PageError;
use crate::pages::{PasswordChange, PasswordChanged, render};
use crate::session::{self, csrf_token};
use crate::sign_in::ClientAddress;
use crate::state::IdpState;
use crate::throttle::Wait;
use crate::users::verify_password;

/// The form is bound to the person as well as to the browser.
fn subject(user: &SsoUserRecord) -> String {
    format!("password-change\0{}", user.user_id)
}

/// The browser's session and its person, or the not-signed-in page.
async fn signed_in(
    state: &IdpState,
    headers: &HeaderMap,
) -> Result<(SessionRecord, SsoUserRecord), PageError> {
    let session = session::current(state, headers)
        .await?
        .ok_or(PageError::NotSignedIn)?;
    let user = state
        .directory
        .sso_user(&session.user_id)
        .await?
        .ok_or(PageError::NotSignedIn)?;
    Ok((session, user))
}

fn form_page(
    state: &IdpState,
    status: StatusCode,
    browser: &str,
    user: &SsoUserRecord,
    error: Option<&str>,
) -> Response {
    render(
        status,
        &PasswordChange {
            csrf_token: &csrf_token(state, &subject(user), browser),
            email: &user.email,
            error,
        },
    )
}

pub async fn show(
    State(state): State<IdpState>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let (_, user) = signed_in(&state, &headers).await?;
    let (browser, cookie) = browser(&state, &headers);
    let page = form_page(&state, StatusCode::OK, &browser, &user, None);
    Ok(with_cookie(page, cookie))
}

pub async fn submit(
    State(state): State<IdpState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    let (session, user) = signed_in(&state, &headers).await?;
    let mut form = oauth_form::parse(
        &headers,
        &body,
        &["csrf_token", "current_password", "password", "confirmation"],
    )
    .unwrap_or_default();
    let presented = form.remove("csrf_token").unwrap_or_default();
    let browser = posting_browser(&state, &headers, &subject(&user), &presented)?;
    let refuse = |status, why: &str| form_page(&state, status, browser, &user, Some(why));

    let attempt = match state
        .sign_in_throttle
        .attempt(&user.email, address, state.clock.now_ms())
    {
        Ok(attempt) => attempt,
        Err(wait_ms) => {
            let wait = Wait::new(wait_ms);
            let page = refuse(
                StatusCode::TOO_MANY_REQUESTS,
                &wait.message("Too many attempts."),
            );
            return Ok(wait.stamp(page));
        }
    };
    let current = form.remove("current_password").unwrap_or_default();
    let stored = user.password_hash.clone();
    let good = tokio::task::spawn_blocking(move || verify_password(&stored, &current))
        .await
        .map_err(|e| PageError::Internal(e.to_string()))?;
    if !good {
        return Ok(refuse(
            StatusCode::UNAUTHORIZED,
            "Enter your current password correctly.",
        ));
    }
    state.sign_in_throttle.succeeded(attempt);

    let password = form.remove("password").unwrap_or_default();
    let confirmation = form.remove("confirmation").unwrap_or_default();
    if let Some(why) = refusal(&password, &confirmation) {
        return Ok(refuse(StatusCode::UNPROCESSABLE_ENTITY, why));
    }
    let change = new_password(&state, &user, password).await?;
    if !state
        .directory
        .change_password(change, &session.selector)
        .await?
    {
        return Err(PageError::NotSignedIn);
    }
    state.grants.forget();
    Ok(render(
        StatusCode::OK,
        &PasswordChanged {
            signed_out_everywhere: false,
        },
    ))
}
