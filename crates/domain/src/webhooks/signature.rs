//! The webhook signature scheme from the hub document:
//! `Service-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
//! The whole `whsec_…` string is the key.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

pub const HEADER: &str = "Service-Signature";
pub const TOLERANCE_SECONDS: i64 = 300;

fn mac(secret: &str, timestamp: i64, body: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC-SHA256 accepts any key length"));
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().into()
}

pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    sign_with_each(&[secret], timestamp, body)
}

/// One `v1` per secret, in order: during a secret's rotation, deliveries
/// carry a signature by the new secret and one by the old, so a receiver
/// holding either verifies them.
pub fn sign_with_each(secrets: &[&str], timestamp: i64, body: &[u8]) -> String {
    let mut header = format!("t={timestamp}");
    for secret in secrets {
        header.push_str(",v1=");
        header.push_str(&hex::encode(mac(secret, timestamp, body)));
    }
    header
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("signature header is malformed")]
    Malformed,
    #[error("no v1 signature matches")]
    NoMatch,
    #[error("timestamp outside the tolerance")]
    Stale,
}

/// Verification as a receiver should do it (used by our own tests of the scheme;
/// the end-to-end tests use Stripe's independent verifier).
pub fn verify(secret: &str, header: &str, body: &[u8], now_unix: i64) -> Result<(), VerifyError> {
    let mut timestamp = None;
    let mut candidates = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => timestamp = v.parse::<i64>().ok(),
            Some(("v1", v)) => candidates.push(hex::decode(v).map_err(|_| VerifyError::Malformed)?),
            _ => {}
        }
    }
    let t = timestamp.ok_or(VerifyError::Malformed)?;
    let expected = mac(secret, t, body);
    if !candidates
        .iter()
        .any(|c| bool::from(c.as_slice().ct_eq(&expected)))
    {
        return Err(VerifyError::NoMatch);
    }
    if now_unix.abs_diff(t) > TOLERANCE_SECONDS.unsigned_abs() {
        return Err(VerifyError::Stale);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_signed_with_two_secrets_verifies_with_either() {
        let header = sign_with_each(&["whsec_new", "whsec_old"], 1_000, b"{}");
        assert_eq!(header.matches("v1=").count(), 2);
        assert_eq!(verify("whsec_new", &header, b"{}", 1_000), Ok(()));
        assert_eq!(verify("whsec_old", &header, b"{}", 1_000), Ok(()));
        assert_eq!(
            verify("whsec_other", &header, b"{}", 1_000),
            Err(VerifyError::NoMatch)
        );
        assert_eq!(
            sign("whsec_new", 1_000, b"{}"),
            sign_with_each(&["whsec_new"], 1_000, b"{}")
        );
    }

    #[test]
    fn known_vector() {
        // Computed independently: printf '1700000000.{}' | openssl dgst -sha256 -hmac whsec_test
        let h = sign("whsec_test", 1_700_000_000, b"{}");
        assert_eq!(
            h,
            "t=1700000000,v1=35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91"
        );
    }

    #[test]
    fn verify_accepts_own_signature_and_rejects_changes() {
        let h = sign("whsec_k", 100, b"body");
        assert_eq!(verify("whsec_k", &h, b"body", 100), Ok(()));
        assert_eq!(
            verify("whsec_k", &h, b"bodY", 100),
            Err(VerifyError::NoMatch)
        );
        assert_eq!(
            verify("whsec_x", &h, b"body", 100),
            Err(VerifyError::NoMatch)
        );
        assert_eq!(
            verify("whsec_k", &h, b"body", 100 + 301),
            Err(VerifyError::Stale)
        );
        for far in [i64::MIN, i64::MAX] {
            assert_eq!(
                verify("whsec_k", &sign("whsec_k", far, b"body"), b"body", 100),
                Err(VerifyError::Stale),
                "found by the fuzzer: no overflow at the ends"
            );
        }
        assert_eq!(
            verify("whsec_k", "v1=00", b"body", 100),
            Err(VerifyError::Malformed)
        );
    }

    #[test]
    fn any_of_several_v1_values_may_match() {
        let good = sign("whsec_k", 5, b"x");
        let v1 = good.split("v1=").nth(1).unwrap_or_default();
        let header = format!("t=5,v1={},v1={v1}", "ab".repeat(32));
        assert_eq!(verify("whsec_k", &header, b"x", 5), Ok(()));
    }
}
