//! Request headers with rules of their own.

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;

use crate::Problem;

/// A syntactically valid `Idempotency-Key` (8–128 printable characters).
#[derive(Clone, Debug)]
pub struct IdempotencyKey(pub String);

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Problem> {
        let malformed =
            |m: &str| Problem::new(StatusCode::BAD_REQUEST, "idempotency_key_malformed", m);
        let mut sent = parts.headers.get_all("idempotency-key").iter();
        let raw = sent
            .next()
            .ok_or_else(|| malformed("the Idempotency-Key header is required on this operation"))?;
        // Two keys name two requests: which one a retry meant is unknowable.
        if sent.next().is_some() {
            return Err(malformed("send one Idempotency-Key header, not several"));
        }
        let key = raw
            .to_str()
            .map_err(|_| malformed("the Idempotency-Key header must be printable ASCII"))?;
        if !lendhub_domain::idempotency::valid_key(key) {
            return Err(malformed(
                "the Idempotency-Key header must be 8 to 128 printable characters without spaces",
            ));
        }
        Ok(Self(key.to_owned()))
    }
}

/// Whether the request sends header `name` more than once: for a header a
/// check reads (credentials, a signature), one reader taking the first and
/// another the last must never disagree, so such a request is refused.
pub fn repeated(
    headers: &axum::http::HeaderMap,
    name: impl axum::http::header::AsHeaderName,
) -> bool {
    headers.get_all(name).iter().nth(1).is_some()
}

/// The token of an `Authorization: Bearer …` header, if exactly one is
/// present.
pub fn bearer_token(parts: &Parts) -> Option<&str> {
    if repeated(&parts.headers, axum::http::header::AUTHORIZATION) {
        return None;
    }
    let value = parts
        .headers
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The value of cookie `name`, if the request carries a non-empty one
/// (RFC 6265: every `Cookie` header, pairs split on `;`, a quoted value
/// unquoted).
pub fn cookie<'a>(headers: &'a axum::http::HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.trim_matches('"'))
        .filter(|v| !v.is_empty())
}
