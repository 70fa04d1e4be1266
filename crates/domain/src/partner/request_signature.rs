//! Request signing for callers that move money (hub seed, Authentication §7:
//! "callers that disburse funds must also sign the request body … the
//! scheme: not shown"). The scheme, documented in docs/guide/src/request-signing.md:
//!
//! ```text
//! Service-Request-Signature: t=<unix seconds>,kid=<rsk_… key id>,ed25519=<base64url signature>
//! ```
//!
//! The signature is Ed25519, by a key pair whose public half the partner
//! registered, over the canonical string
//!
//! ```text
//! lendhub-request-v1\n<t>\n<METHOD>\n<path and query>\n<Idempotency-Key>\n<hex SHA-256 of the raw body>
//! ```
//!
//! Replay protection: `t` must be within five minutes of the service's
//! clock, and the Idempotency-Key — required on every signed request — is
//! signed, so a captured request sent again can only replay its stored
//! answer, never act twice; another key needs another signature.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha256};

pub const HEADER: &str = "Service-Request-Signature";
/// How far `t` may be from the service's clock, either way.
pub const TOLERANCE_SECONDS: i64 = 300;
const DOMAIN: &str = "lendhub-request-v1";

/// What a request signature covers.
pub struct Signed<'a> {
    pub method: &'a str,
    pub path_and_query: &'a str,
    pub idempotency_key: &'a str,
    pub body: &'a [u8],
}

/// The bytes that are signed for `request` at `timestamp`.
pub fn canonical(timestamp: i64, request: &Signed<'_>) -> Vec<u8> {
    format!(
        "{DOMAIN}\n{timestamp}\n{}\n{}\n{}\n{}",
        request.method.to_ascii_uppercase(),
        request.path_and_query,
        request.idempotency_key,
        hex::encode(Sha256::digest(request.body)),
    )
    .into_bytes()
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the Service-Request-Signature header is missing")]
    Missing,
    #[error("the Service-Request-Signature header is malformed: {0}")]
    Malformed(&'static str),
    #[error("the signature's timestamp is more than five minutes from now")]
    Stale,
    #[error("no registered signing key {0}")]
    UnknownKey(String),
    #[error("the signature does not verify")]
    Mismatch,
}

/// A parsed header.
#[derive(Debug, PartialEq, Eq)]
pub struct Header {
    pub timestamp: i64,
    pub key_id: String,
    pub signature: [u8; 64],
}

pub fn parse(raw: &str) -> Result<Header, SignatureError> {
    let (mut t, mut kid, mut sig) = (None, None, None);
    for part in raw.split(',') {
        let (name, value) = part
            .trim()
            .split_once('=')
            .ok_or(SignatureError::Malformed("expected name=value pairs"))?;
        let slot = match name {
            "t" => &mut t,
            "kid" => &mut kid,
            "ed25519" => &mut sig,
            _ => return Err(SignatureError::Malformed("unknown member")),
        };
        if slot.replace(value).is_some() {
            return Err(SignatureError::Malformed("repeated member"));
        }
    }
    let timestamp = t
        .and_then(|t| t.parse().ok())
        .ok_or(SignatureError::Malformed("t must be unix seconds"))?;
    let key_id = kid
        .filter(|k| k.starts_with("rsk_"))
        .ok_or(SignatureError::Malformed("kid must name an rsk_ key"))?
        .to_owned();
    let signature = sig
        .and_then(|s| URL_SAFE_NO_PAD.decode(s).ok())
        .and_then(|b| <[u8; 64]>::try_from(b).ok())
        .ok_or(SignatureError::Malformed(
            "ed25519 must be a 64-byte signature in base64url",
        ))?;
    Ok(Header {
        timestamp,
        key_id,
        signature,
    })
}

/// Checks `header` over `request` with the registered `public_key` (32
/// bytes) at `now_unix`.
pub fn verify(
    public_key: &[u8],
    header: &Header,
    request: &Signed<'_>,
    now_unix: i64,
) -> Result<(), SignatureError> {
    // abs_diff: a timestamp near i64::MIN or MAX must be stale, not overflow.
    if now_unix.abs_diff(header.timestamp) > TOLERANCE_SECONDS.unsigned_abs() {
        return Err(SignatureError::Stale);
    }
    let key = <[u8; 32]>::try_from(public_key)
        .ok()
        .and_then(|k| VerifyingKey::from_bytes(&k).ok())
        .ok_or(SignatureError::Mismatch)?;
    key.verify_strict(
        &canonical(header.timestamp, request),
        &Signature::from_bytes(&header.signature),
    )
    .map_err(|_| SignatureError::Mismatch)
}

/// A registered public key as the partner gives it: 32 raw bytes in
/// base64 (standard or url-safe), or a PEM/DER SubjectPublicKeyInfo.
pub fn parse_public_key(raw: &str) -> Option<[u8; 32]> {
    use ed25519_dalek::pkcs8::DecodePublicKey;
    let raw = raw.trim();
    if raw.starts_with("-----BEGIN") {
        return VerifyingKey::from_public_key_pem(raw)
            .ok()
            .map(|k| k.to_bytes());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(raw)
        .or_else(|_| URL_SAFE_NO_PAD.decode(raw.trim_end_matches('=')))
        .ok()?;
    if let Ok(key) = <[u8; 32]>::try_from(bytes.as_slice()) {
        return VerifyingKey::from_bytes(&key).ok().map(|k| k.to_bytes());
    }
    VerifyingKey::from_public_key_der(&bytes)
        .ok()
        .map(|k| k.to_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};

    fn request(body: &[u8]) -> Signed<'_> {
        Signed {
            method: "post",
            path_and_query: "/partner/v1/payments/links",
            idempotency_key: "pay-0001",
            body,
        }
    }

    fn header(key: &SigningKey, t: i64, body: &[u8]) -> Header {
        Header {
            timestamp: t,
            key_id: "rsk_1".into(),
            signature: key.sign(&canonical(t, &request(body))).to_bytes(),
        }
    }

    #[test]
    fn the_canonical_string_is_the_documented_one() {
        let text = String::from_utf8(canonical(1_700_000_000, &request(b"{}"))).unwrap_or_default();
        assert_eq!(
            text,
            "lendhub-request-v1\n1700000000\nPOST\n/partner/v1/payments/links\npay-0001\n\
             44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    #[test]
    fn a_signature_verifies_only_over_what_it_signed_and_only_in_time() {
        let key = SigningKey::from_bytes(&[7; 32]);
        let public = key.verifying_key().to_bytes();
        let signed = header(&key, 1_000, b"{\"amount_pence\":100}");
        assert_eq!(
            verify(&public, &signed, &request(b"{\"amount_pence\":100}"), 1_100),
            Ok(())
        );
        assert_eq!(
            verify(&public, &signed, &request(b"{\"amount_pence\":999}"), 1_100),
            Err(SignatureError::Mismatch),
            "another body"
        );
        let other_key = Signed {
            idempotency_key: "pay-0002",
            ..request(b"{\"amount_pence\":100}")
        };
        assert_eq!(
            verify(&public, &signed, &other_key, 1_100),
            Err(SignatureError::Mismatch),
            "another idempotency key needs another signature"
        );
        assert_eq!(
            verify(&public, &signed, &request(b"{\"amount_pence\":100}"), 1_301),
            Err(SignatureError::Stale)
        );
        // Found by the fuzzer: the farthest timestamps are stale, not an
        // overflow.
        for t in [i64::MIN, i64::MAX] {
            assert_eq!(
                verify(&public, &header(&key, t, b"{}"), &request(b"{}"), 1_100),
                Err(SignatureError::Stale)
            );
        }
        let stranger = SigningKey::from_bytes(&[8; 32]).verifying_key().to_bytes();
        assert_eq!(
            verify(
                &stranger,
                &signed,
                &request(b"{\"amount_pence\":100}"),
                1_100
            ),
            Err(SignatureError::Mismatch)
        );
    }

    /// docs/guide/src/request-signing.md's worked example verifies as documented.
    #[test]
    fn the_documented_example_verifies() {
        let public = parse_public_key("6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw=");
        assert_eq!(
            public,
            Some(SigningKey::from_bytes(&[7; 32]).verifying_key().to_bytes())
        );
        let header = parse(
            "t=1795000000,kid=rsk_Q2xpZW50S2V5MDE,ed25519=hyhgzRqGb1EP3OvwA68KVsy_qFbst57EEY-lhorQnBZit87DPVyyMuCqx9GtbBHKlaIfqFW-qQB8a98vM3Q5Bw",
        );
        let body = br#"{"account_id":"acc_01JD3M5T7YV0000000000000","amount_pence":2500,"reference":"INV-1"}"#;
        let request = Signed {
            method: "POST",
            path_and_query: "/partner/v1/payments/links",
            idempotency_key: "pay-link-0001",
            body,
        };
        let (Some(public), Ok(header)) = (public, header) else {
            panic!("the example parses")
        };
        assert_eq!(verify(&public, &header, &request, 1_795_000_100), Ok(()));
    }

    #[test]
    fn headers_parse_strictly() {
        let sig = URL_SAFE_NO_PAD.encode([1u8; 64]);
        let ok = parse(&format!("t=5,kid=rsk_a,ed25519={sig}"));
        assert_eq!(
            ok.map(|h| (h.timestamp, h.key_id)),
            Ok((5, "rsk_a".to_owned()))
        );
        for bad in [
            "t=5,kid=rsk_a".to_owned(),
            format!("t=x,kid=rsk_a,ed25519={sig}"),
            format!("t=5,kid=key_a,ed25519={sig}"),
            format!("t=5,t=6,kid=rsk_a,ed25519={sig}"),
            "t=5,kid=rsk_a,ed25519=short".to_owned(),
            format!("t=5,kid=rsk_a,v1={sig}"),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn public_keys_are_read_raw_or_as_pem() {
        let key = SigningKey::from_bytes(&[9; 32]).verifying_key();
        let raw = base64::engine::general_purpose::STANDARD.encode(key.to_bytes());
        assert_eq!(parse_public_key(&raw), Some(key.to_bytes()));
        use ed25519_dalek::pkcs8::EncodePublicKey;
        let pem = key
            .to_public_key_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
            .unwrap_or_default();
        assert_eq!(parse_public_key(&pem), Some(key.to_bytes()));
        assert_eq!(parse_public_key("not a key"), None);
    }
}
