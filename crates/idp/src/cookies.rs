//! The provider's two cookies, both `HttpOnly`, `SameSite=Lax`, `Path=/`, and
//! `Secure` when the issuer is HTTPS:
//!
//! - `lendhub_sso_browser`: a random id that binds a sign-in transaction to
//!   the browser that started it (a form posted from another browser, or by
//!   another site, fails its CSRF check);
//! - `lendhub_sso_session`: the signed-in session (selector and verifier;
//!   the store keeps only the verifier's hash).
//!
//! Both are session cookies: closing the browser signs the person out.

use axum::http::{HeaderMap, HeaderValue};
use sha2::{Digest, Sha256};

pub const BROWSER: &str = "lendhub_sso_browser";
pub const SESSION: &str = "lendhub_sso_session";

/// The value of cookie `name`, if the request carries it.
pub fn get<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    lendhub_http::headers::cookie(headers, name)
}

/// A `Set-Cookie` value that stores `value`.
pub fn set(name: &str, value: &str, secure: bool) -> Option<HeaderValue> {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Lax{secure}"
    ))
    .ok()
}

/// A `Set-Cookie` value that deletes cookie `name`.
pub fn clear(name: &str, secure: bool) -> Option<HeaderValue> {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{name}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}"
    ))
    .ok()
}

/// What the store keeps of a browser id.
pub fn browser_hash(browser: &str) -> Vec<u8> {
    Sha256::digest(browser.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_one_cookie_among_many() {
        let mut h = HeaderMap::new();
        h.insert(
            axum::http::header::COOKIE,
            HeaderValue::from_static("a=1; lendhub_sso_browser=xyz; b=2"),
        );
        h.append(
            axum::http::header::COOKIE,
            HeaderValue::from_static("lendhub_sso_session=s"),
        );
        assert_eq!(get(&h, BROWSER), Some("xyz"));
        assert_eq!(get(&h, SESSION), Some("s"));
        assert_eq!(get(&h, "c"), None);
    }

    #[test]
    fn attributes() {
        let v = set(SESSION, "v", true).map(|v| v.to_str().unwrap_or("").to_owned());
        assert_eq!(
            v.as_deref(),
            Some("lendhub_sso_session=v; Path=/; HttpOnly; SameSite=Lax; Secure")
        );
        let v = clear(SESSION, false).map(|v| v.to_str().unwrap_or("").to_owned());
        assert!(v.is_some_and(|v| v.contains("Max-Age=0") && !v.contains("Secure")));
    }
}
