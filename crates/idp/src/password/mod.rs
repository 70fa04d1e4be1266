//! Passwords a person sets themselves (issue #19): a reset by e-mail for
//! whoever has forgotten theirs (`/password/forgot`, then the link's
//! `/password/reset`), and a change for whoever is signed in
//! (`/password/change`). Every mail goes through the SMTP outbox, queued in
//! the same transaction as what it reports.

pub mod change;
pub mod forgot;
pub mod reset;

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use lendhub_domain::sandbox::ids::SandboxId;
use lendhub_store::{MailRecord, NewPassword, SsoUserRecord};
use lendhub_system::{NewRandom, random_token};
use sha2::{Digest, Sha256};

use crate::cookies;
use crate::error::PageError;
use crate::state::IdpState;
use crate::users::{MAX_PASSWORD, MIN_PASSWORD, hash_password};

/// This request's browser id, or a new one with the cookie that sets it:
/// the forms here may be the first page of ours a browser sees (a link
/// opened from a mail).
pub(crate) fn browser(state: &IdpState, headers: &HeaderMap) -> (String, Option<HeaderValue>) {
    match cookies::get(headers, cookies::BROWSER) {
        Some(b) if b.len() <= 64 => (b.to_owned(), None),
        _ => {
            let browser = random_token(32);
            let cookie = cookies::set(cookies::BROWSER, &browser, state.urls.secure());
            (browser, cookie)
        }
    }
}

/// The browser that posted a form about `subject`, if the form carries the
/// CSRF token that browser was shown; otherwise the form is refused.
pub(crate) fn posting_browser<'h>(
    state: &IdpState,
    headers: &'h HeaderMap,
    subject: &str,
    presented: &str,
) -> Result<&'h str, PageError> {
    cookies::get(headers, cookies::BROWSER)
        .filter(|b| crate::session::csrf_valid(state, subject, b, presented))
        .ok_or(PageError::CsrfInvalid { restart: None })
}

pub(crate) fn with_cookie(mut response: Response, cookie: Option<HeaderValue>) -> Response {
    if let Some(cookie) = cookie {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// What is wrong with a new password and its confirmation, in the words
/// the form shows.
pub(crate) fn refusal(password: &str, confirmation: &str) -> Option<&'static str> {
    if password.chars().count() < MIN_PASSWORD {
        Some("Enter a new password of at least 8 characters.")
    } else if password.len() > MAX_PASSWORD {
        Some("Enter a new password of at most 1024 bytes.")
    } else if password != confirmation {
        Some("The two new passwords do not match.")
    } else {
        None
    }
}

/// An argon2id hash of `password`, made off the async workers.
async fn hash(password: String) -> Result<String, PageError> {
    tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| PageError::Internal(e.to_string()))?
        .map_err(|e| PageError::Internal(e.to_string()))
}

/// `password` hashed as `user`'s new one, with the notice that tells them.
pub(crate) async fn new_password(
    state: &IdpState,
    user: &SsoUserRecord,
    password: String,
) -> Result<NewPassword, PageError> {
    let password_hash = hash(password).await?;
    let now_ms = state.clock.now_ms();
    Ok(NewPassword {
        user_id: user.user_id.clone(),
        password_hash,
        now_ms,
        notice: changed_notice(state, &user.email, now_ms),
    })
}

/// What the store keeps of a reset link's token.
pub(crate) fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

fn mail_id(now_ms: i64) -> String {
    let id: SandboxId = SandboxId::new_random(u64::try_from(now_ms).unwrap_or(0));
    format!("mail_{}", id.as_str())
}

/// A mail to one person, due now.
pub(crate) fn mail(recipient: &str, subject: &str, body: String, now_ms: i64) -> MailRecord {
    MailRecord {
        id: mail_id(now_ms),
        enquiry_id: None,
        recipient: recipient.to_owned(),
        subject: subject.to_owned(),
        body,
        due_ms: now_ms,
    }
}

/// The notice that a person's password changed, sent whichever way it did.
fn changed_notice(state: &IdpState, email: &str, now_ms: i64) -> MailRecord {
    let forgot = state.urls.endpoint("/password/forgot");
    mail(
        email,
        "Your lendhub password was changed",
        format!(
            "The password of your lendhub account ({email}) was changed, and every other \
             place you were signed in has been signed out.\n\n\
             If you did not change it, reset it now at {forgot} and tell your lender.\n"
        ),
        now_ms,
    )
}
