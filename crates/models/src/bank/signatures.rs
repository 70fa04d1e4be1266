//! Message signatures (`x-jws-signature`, PS256, detached): the bank checks
//! those on the client's payment requests against the key registered for
//! the client, and signs its payment answers with its own key, whose JWKS
//! its discovery document names (`GET /jwks`).

use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey};
use lendhub_domain::open_banking::jws::{self, Protected};
use serde_json::Value;

use super::{Bank, Refused};
use crate::keys;

/// The bank's signing key, parsed once.
static BANK_KEY: std::sync::LazyLock<Option<lendhub_system::RsaSigner>> =
    std::sync::LazyLock::new(|| {
        lendhub_system::RsaSigner::from_pem(keys::MODEL_BANK_SIGNING_PEM).ok()
    });

/// `GET /jwks`: the bank's signing key.
pub(super) async fn jwks() -> Response {
    match serde_json::from_str::<Value>(keys::MODEL_BANK_JWKS) {
        Ok(jwks) => Json(jwks).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// Whether `body` carries the client's valid signature; the standard's
/// error answer if not.
pub(super) fn check(bank: &Bank, headers: &HeaderMap, body: &[u8]) -> Result<(), Refused> {
    let refused =
        |code: &'static str, message: &'static str| Refused(StatusCode::BAD_REQUEST, code, message);
    let Some(signature) = headers.get("x-jws-signature").and_then(|v| v.to_str().ok()) else {
        return Err(refused(
            "UK.OBIE.Signature.Missing",
            "x-jws-signature is required",
        ));
    };
    let (protected, input, sig) = jws::parse(signature, body).map_err(|e| {
        refused(
            "UK.OBIE.Signature.Malformed",
            match e {
                jws::Malformed::Shape => "not a detached JWS (header..signature)",
                jws::Malformed::Header => "the protected header is not the standard's",
                jws::Malformed::Critical => "the Open Banking claims are not marked critical",
            },
        )
    })?;
    if protected.alg != "PS256" {
        return Err(refused(
            "UK.OBIE.Signature.InvalidClaim",
            "the signature must be PS256",
        ));
    }
    let key = DecodingKey::from_rsa_pem(bank.registration.signing_key_pem.as_bytes())
        .map_err(|_| refused("UK.OBIE.Signature.Invalid", "no key is registered"))?;
    match jsonwebtoken::crypto::verify(sig, &input, &key, Algorithm::PS256) {
        Ok(true) => Ok(()),
        _ => Err(refused(
            "UK.OBIE.Signature.Invalid",
            "the signature does not verify with the client's key",
        )),
    }
}

/// `response`, its exact bytes signed with the bank's key.
pub(super) fn signed(status: StatusCode, response: &Value) -> Response {
    let body = serde_json::to_vec(response).unwrap_or_default();
    let mut answer = (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.clone(),
    )
        .into_response();
    let header = Protected::ps256(
        keys::MODEL_BANK_KID,
        keys::MODEL_BANK_ISS,
        time::OffsetDateTime::now_utc().unix_timestamp(),
    )
    .encoded();
    let signature = BANK_KEY
        .as_ref()
        .and_then(|key| key.sign_ps256(&jws::signing_input(&header, &body)).ok())
        .map(|s| URL_SAFE_NO_PAD.encode(s));
    if let Some(value) = signature
        .map(|s| jws::detached(&header, &s))
        .and_then(|s| HeaderValue::from_str(&s).ok())
    {
        answer.headers_mut().insert("x-jws-signature", value);
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    /// aws-lc-rs signs; RustCrypto's `rsa`, through `jsonwebtoken`,
    /// verifies: a PS256 signature as JOSE defines it, not one only its
    /// own library accepts.
    #[test]
    fn the_banks_signature_verifies_with_another_implementation() {
        let body = br#"{"Data":{"Status":"Pending"}}"#;
        let response = signed(StatusCode::CREATED, &serde_json::from_slice(body).unwrap());
        let detached = response.headers()["x-jws-signature"].to_str().unwrap();
        let (protected, input, signature) = jws::parse(detached, body).unwrap();
        assert_eq!(protected.alg, "PS256");
        let key =
            DecodingKey::from_rsa_pem(include_bytes!("../../keys/model-bank-signing.pub.pem"))
                .unwrap();
        assert!(jsonwebtoken::crypto::verify(signature, &input, &key, Algorithm::PS256).unwrap());
        assert!(
            !jsonwebtoken::crypto::verify(signature, b"another input", &key, Algorithm::PS256)
                .unwrap_or(false)
        );
    }
}
