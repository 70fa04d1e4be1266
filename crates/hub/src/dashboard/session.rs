//! The dashboard's browser session: a random token in an `HttpOnly`,
//! `SameSite=Lax` cookie scoped to `/dashboard`, kept by the store only as
//! its SHA-256, with the CSRF token every form of the session carries. The
//! sign-in under way (state, nonce, PKCE verifier) travels sealed under the
//! master key in a short-lived cookie of its own, so starting a sign-in
//! writes nothing.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use lendhub_domain::lending::journey::PendingSignIn;
use lendhub_domain::partner::dashboard::Role;
use lendhub_store::{DashboardSessionRecord, StaffMember};
use lendhub_system::Seal;
use sha2::{Digest, Sha256};

use crate::dashboard::state::DashboardState;

pub const COOKIE: &str = "lendhub_dash";
pub const SIGN_IN_COOKIE: &str = "lendhub_dash_signin";
const SEAL_PURPOSE: &str = "dashboard-sign-in";
/// A sign-in not finished in this long starts again.
const SIGN_IN_SECONDS: u32 = 600;

pub fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

fn secure(state: &DashboardState) -> &'static str {
    if state.links.urls.base.starts_with("https://") {
        "; Secure"
    } else {
        ""
    }
}

/// `Set-Cookie` for `name` under `path`: `HttpOnly`, `SameSite=Lax`,
/// `Secure` behind https; `value` for the browser's session, or `None` to
/// remove it.
pub fn cookie_at(
    state: &DashboardState,
    name: &str,
    path: &str,
    value: Option<&str>,
) -> Option<HeaderValue> {
    let (value, age) = value.map_or(("", "; Max-Age=0"), |v| (v, ""));
    HeaderValue::from_str(&format!(
        "{name}={value}; Path={path}; HttpOnly; SameSite=Lax{age}{}",
        secure(state)
    ))
    .ok()
}

/// `Set-Cookie` for a session token (a browser-session cookie).
pub fn session_cookie(state: &DashboardState, token: &str) -> Option<HeaderValue> {
    cookie_at(state, COOKIE, "/dashboard", Some(token))
}

/// `Set-Cookie` that removes `name`.
pub fn cleared(state: &DashboardState, name: &str) -> Option<HeaderValue> {
    cookie_at(state, name, "/dashboard", None)
}

/// The pending sign-in, sealed, as a cookie.
pub fn sign_in_cookie(state: &DashboardState, pending: &PendingSignIn) -> Option<HeaderValue> {
    let plain = serde_json::to_vec(pending).ok()?;
    let sealed = URL_SAFE_NO_PAD.encode(state.master_key.seal(SEAL_PURPOSE, &plain));
    HeaderValue::from_str(&format!(
        "{SIGN_IN_COOKIE}={sealed}; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age={SIGN_IN_SECONDS}{}",
        secure(state)
    ))
    .ok()
}

/// The pending sign-in this browser started, if its cookie opens.
pub fn pending(state: &DashboardState, headers: &HeaderMap) -> Option<PendingSignIn> {
    let sealed = URL_SAFE_NO_PAD
        .decode(lendhub_http::headers::cookie(headers, SIGN_IN_COOKIE)?)
        .ok()?;
    let plain = state.master_key.open(SEAL_PURPOSE, &sealed).ok()?;
    serde_json::from_slice(&plain).ok()
}

/// A signed-in staff member, for every dashboard page: without a live
/// session the browser is sent to sign in.
pub struct Staff {
    pub session: DashboardSessionRecord,
    pub member: StaffMember,
    pub role: Role,
}

impl Staff {
    pub fn csrf_matches(&self, presented: &str) -> bool {
        use subtle::ConstantTimeEq;
        bool::from(self.session.csrf.as_bytes().ct_eq(presented.as_bytes()))
    }
}

pub enum NotSignedIn {
    SignIn,
    Unavailable,
}

impl IntoResponse for NotSignedIn {
    fn into_response(self) -> Response {
        match self {
            NotSignedIn::SignIn => Redirect::to("/dashboard/sign-in").into_response(),
            NotSignedIn::Unavailable => super::refusals::unavailable(),
        }
    }
}

impl FromRequestParts<DashboardState> for Staff {
    type Rejection = NotSignedIn;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &DashboardState,
    ) -> Result<Self, Self::Rejection> {
        let token =
            lendhub_http::headers::cookie(&parts.headers, COOKIE).ok_or(NotSignedIn::SignIn)?;
        let found = state
            .dashboard
            .dashboard_session(&hash(token), state.clock.now_ms())
            .await
            .map_err(|_| NotSignedIn::Unavailable)?;
        let (session, member) = found.ok_or(NotSignedIn::SignIn)?;
        let role = Role::parse(&member.staff.role).ok_or(NotSignedIn::SignIn)?;
        Ok(Staff {
            session,
            member,
            role,
        })
    }
}
