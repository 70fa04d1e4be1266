//! HTTP basic credentials, as the model servers' callers present them.

use axum::http::{HeaderMap, header};
use base64::Engine;

/// The user name and password of the request's `Authorization: Basic …`.
pub fn basic(headers: &HeaderMap) -> Option<(String, String)> {
    let encoded = headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Basic ")?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let (user, password) = std::str::from_utf8(&decoded).ok()?.split_once(':')?;
    Some((user.to_owned(), password.to_owned()))
}

/// Whether `given` is `expected`, compared in constant time.
pub fn same(given: &str, expected: &str) -> bool {
    bool::from(subtle::ConstantTimeEq::ct_eq(
        given.as_bytes(),
        expected.as_bytes(),
    ))
}
