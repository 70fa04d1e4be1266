//! The keys that sign partner access tokens: Ed25519, in the shared key ring
//! (`lendhub_keyring`: sealed private halves, current and previous, re-read
//! by every instance). `lendhub keys rotate` rotates with overlap.
//!
//! Signatures are made by aws-lc-rs, whose Ed25519 (s2n-bignum's verified
//! assembly) signs a token in half the time ed25519-dalek takes; verification
//! stays with `jsonwebtoken`'s own backend.

use aws_lc_rs::signature::Ed25519KeyPair;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::DecodingKey;
use lendhub_keyring::{Algorithm, Malformed, NewKey};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The purpose under which the partner ring's keys are stored.
pub const PARTNER_KEYS: &str = "partner";

pub struct PartnerKeys;

pub type KeyRing = lendhub_keyring::KeyRing<PartnerKeys>;

/// Makes a new partner key current; the current one verifies until its
/// tokens expire.
pub async fn rotate(
    store: &dyn lendhub_store::KeyStore,
    master_key: &lendhub_domain::crypto::MasterKey,
    now_ms: i64,
) -> Result<String, lendhub_store::StoreError> {
    lendhub_keyring::rotate::<PartnerKeys>(store, master_key, now_ms).await
}

/// RFC 7638 thumbprint of an Ed25519 public key, as its `kid`.
fn thumbprint(x: &str) -> String {
    let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}"#);
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

impl Algorithm for PartnerKeys {
    const PURPOSE: &'static str = PARTNER_KEYS;
    const NAME: &'static str = "partner token";
    const JWS: jsonwebtoken::Algorithm = jsonwebtoken::Algorithm::EdDSA;
    type SigningKey = Ed25519KeyPair;

    fn generate() -> NewKey {
        let seed: [u8; 32] = lendhub_system::random_bytes();
        let public = ed25519_dalek::SigningKey::from_bytes(&seed)
            .verifying_key()
            .to_bytes();
        NewKey {
            kid: thumbprint(&URL_SAFE_NO_PAD.encode(public)),
            private: seed.to_vec(),
            public: public.to_vec(),
        }
    }

    /// The stored half is the 32-byte seed (RFC 8032 §5.1.5's private key).
    fn signer(private: &[u8]) -> Result<Ed25519KeyPair, Malformed> {
        Ed25519KeyPair::from_seed_unchecked(private)
            .map_err(|_| Malformed("a stored Ed25519 seed has the wrong length"))
    }

    fn sign(key: &Ed25519KeyPair, message: &[u8]) -> Vec<u8> {
        key.sign(message).as_ref().to_vec()
    }

    fn verifier(public: &[u8]) -> Result<(DecodingKey, Value), Malformed> {
        let x = URL_SAFE_NO_PAD.encode(public);
        let key = DecodingKey::from_ed_components(&x)
            .map_err(|_| Malformed("a stored Ed25519 public key is not one"))?;
        let jwk = json!({"kty": "OKP", "crv": "Ed25519", "x": x, "alg": "EdDSA", "use": "sig"});
        Ok((key, jwk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signature, Verifier, VerifyingKey};

    /// The signer and the verifier are different libraries, so they are held
    /// to RFC 8032 together: Ed25519 is deterministic, so a generated key's
    /// signature must be the one ed25519-dalek makes, and must verify.
    #[test]
    fn signatures_are_rfc_8032_ed25519() {
        for length in [0, 1, 64, 420, 1000] {
            let key = PartnerKeys::generate();
            let message = vec![b'x'; length];
            let signer = PartnerKeys::signer(&key.private).unwrap();
            let signature = PartnerKeys::sign(&signer, &message);
            let seed: [u8; 32] = key.private.as_slice().try_into().unwrap();
            let dalek = ed25519_dalek::SigningKey::from_bytes(&seed);
            assert_eq!(
                signature,
                ed25519_dalek::Signer::sign(&dalek, &message).to_bytes()
            );
            let public: [u8; 32] = key.public.as_slice().try_into().unwrap();
            let signature = Signature::from_slice(&signature).unwrap();
            assert!(
                VerifyingKey::from_bytes(&public)
                    .unwrap()
                    .verify(&message, &signature)
                    .is_ok()
            );
        }
    }

    #[test]
    fn a_seed_of_the_wrong_length_is_refused() {
        assert!(PartnerKeys::signer(&[7; 31]).is_err());
        assert!(PartnerKeys::signer(&[7; 33]).is_err());
    }
}
