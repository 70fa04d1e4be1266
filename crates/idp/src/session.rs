//! Browser sessions and the CSRF tokens of the provider's forms.

use axum::http::HeaderMap;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use lendhub_domain::identity::claims::SESSION_TTL_MS;
use lendhub_domain::partner::credentials::{hash_secret, parse_access_token};
use lendhub_store::{SessionRecord, StoreError};
use lendhub_system::generate_access_token;
use subtle::ConstantTimeEq;

use crate::cookies;
use crate::state::IdpState;

/// A new session for `user_id`, signed in now: the cookie value and the record.
pub fn open(user_id: &str, now_ms: i64) -> (String, SessionRecord) {
    let token = generate_access_token(now_ms);
    (
        token.token,
        SessionRecord {
            selector: token.selector.to_vec(),
            verifier_hash: token.verifier_hash.to_vec(),
            user_id: user_id.to_owned(),
            auth_time_ms: now_ms,
            created_at_ms: now_ms,
            expires_at_ms: now_ms + SESSION_TTL_MS,
            ended_at_ms: None,
        },
    )
}

/// The browser's live session, if its cookie names one.
pub async fn current(
    state: &IdpState,
    headers: &HeaderMap,
) -> Result<Option<SessionRecord>, StoreError> {
    let Some((selector, verifier_hash)) =
        cookies::get(headers, cookies::SESSION).and_then(parse_access_token)
    else {
        return Ok(None);
    };
    let Some(session) = state.sign_ins.session(&selector).await? else {
        return Ok(None);
    };
    let live = bool::from(verifier_hash.ct_eq(session.verifier_hash.as_slice()))
        && session.ended_at_ms.is_none()
        && state.clock.now_ms() < session.expires_at_ms;
    Ok(live.then_some(session))
}

/// The CSRF token of a form about `subject` (a ticket id, or `logout`),
/// bound to the browser that is shown it: HMAC under a key derived from the
/// master key, so nothing needs storing.
pub fn csrf_token(state: &IdpState, subject: &str, browser: &str) -> String {
    let mac = hash_secret(state.csrf_key.expose(), &format!("{subject}\0{browser}"));
    URL_SAFE_NO_PAD.encode(mac)
}

/// Whether `presented` is the CSRF token for `subject` in this browser.
pub fn csrf_valid(state: &IdpState, subject: &str, browser: &str, presented: &str) -> bool {
    let expected = csrf_token(state, subject, browser);
    expected.len() == presented.len() && bool::from(expected.as_bytes().ct_eq(presented.as_bytes()))
}
