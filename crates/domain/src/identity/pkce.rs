//! Proof Key for Code Exchange (RFC 7636) with the only method the identity
//! provider accepts, `S256`, and the ID token's `at_hash` (OpenID Connect
//! Core §3.1.3.6), which uses the same construction on the access token.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// RFC 7636 §4.1: 43 to 128 characters.
pub const VERIFIER_MIN: usize = 43;
pub const VERIFIER_MAX: usize = 128;

/// `code_verifier = 43*128unreserved`, unreserved = `A-Z a-z 0-9 - . _ ~`.
pub fn verifier_is_valid(verifier: &str) -> bool {
    (VERIFIER_MIN..=VERIFIER_MAX).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// An S256 challenge is the base64url (unpadded) SHA-256 of a verifier:
/// exactly 43 characters of the base64url alphabet.
pub fn challenge_is_valid(challenge: &str) -> bool {
    challenge.len() == 43
        && challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
        && URL_SAFE_NO_PAD.decode(challenge).is_ok()
}

/// `BASE64URL(SHA256(ASCII(code_verifier)))`.
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Whether `verifier` is well-formed and hashes to `challenge`.
pub fn verifier_matches(verifier: &str, challenge: &str) -> bool {
    verifier_is_valid(verifier) && bool::from(s256(verifier).as_bytes().ct_eq(challenge.as_bytes()))
}

/// The left half of the SHA-256 of the access token, base64url: `at_hash`
/// for an ID token signed with ES256.
pub fn at_hash(access_token: &str) -> String {
    let digest = Sha256::digest(access_token.as_bytes());
    URL_SAFE_NO_PAD.encode(&digest[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b_example() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert_eq!(s256(verifier), challenge);
        assert!(challenge_is_valid(challenge));
        assert!(verifier_matches(verifier, challenge));
        assert!(!verifier_matches(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj",
            challenge
        ));
    }

    #[test]
    fn verifier_length_bounds() {
        assert!(!verifier_is_valid(&"a".repeat(42)));
        assert!(verifier_is_valid(&"a".repeat(43)));
        assert!(verifier_is_valid(&"a".repeat(128)));
        assert!(!verifier_is_valid(&"a".repeat(129)));
        assert!(!verifier_is_valid(""));
    }

    #[test]
    fn verifier_charset_is_the_unreserved_set() {
        let base = "a".repeat(42);
        for ok in ['A', 'z', '0', '9', '-', '.', '_', '~'] {
            assert!(verifier_is_valid(&format!("{base}{ok}")), "{ok}");
        }
        for bad in ['+', '/', '=', ' ', '%', '!', '*', 'é', '\n'] {
            assert!(!verifier_is_valid(&format!("{base}{bad}")), "{bad:?}");
        }
        // A malformed verifier never matches, even against its own hash.
        let odd = format!("{base}+");
        assert!(!verifier_matches(&odd, &s256(&odd)));
    }

    #[test]
    fn challenge_shape() {
        assert!(!challenge_is_valid(&"a".repeat(42)));
        assert!(!challenge_is_valid(&"a".repeat(44)));
        assert!(!challenge_is_valid(&format!("{}+", "a".repeat(42))));
        assert!(!challenge_is_valid(&format!("{}=", "a".repeat(42))));
        // "plain" challenges are the verifier itself: 43+ unreserved
        // characters, usually including '.' or '~', which S256 never yields.
        assert!(!challenge_is_valid(&format!("{}~", "a".repeat(42))));
    }

    #[test]
    fn at_hash_is_the_left_half_of_sha256() {
        // OpenID Connect Core, Appendix A.3 / A.4 (RS256 uses SHA-256 too):
        // access token "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y" has
        // at_hash "77QmUPtjPfzWtF2AnpK9RQ".
        assert_eq!(
            at_hash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y"),
            "77QmUPtjPfzWtF2AnpK9RQ"
        );
        assert_eq!(at_hash("x").len(), 22);
    }
}
