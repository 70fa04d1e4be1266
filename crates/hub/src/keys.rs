//! The keys that sign partner access tokens: Ed25519, in the shared key ring
//! (`lendhub_keyring`: sealed private halves, current and previous, re-read
//! by every instance). `lendhub keys rotate` rotates with overlap.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signer, SigningKey};
use jsonwebtoken::DecodingKey;
use lendhub_keyring::{Algorithm, NewKey};
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
    type SigningKey = SigningKey;

    fn generate() -> NewKey {
        let seed: [u8; 32] = lendhub_system::random_bytes();
        let public = SigningKey::from_bytes(&seed).verifying_key().to_bytes();
        NewKey {
            kid: thumbprint(&URL_SAFE_NO_PAD.encode(public)),
            private: seed.to_vec(),
            public: public.to_vec(),
        }
    }

    fn signer(private: &[u8]) -> Result<SigningKey, String> {
        let seed: [u8; 32] = private
            .try_into()
            .map_err(|_| "a stored Ed25519 seed has the wrong length".to_owned())?;
        Ok(SigningKey::from_bytes(&seed))
    }

    fn sign(key: &SigningKey, message: &[u8]) -> Vec<u8> {
        key.sign(message).to_bytes().to_vec()
    }

    fn verifier(public: &[u8]) -> Result<(DecodingKey, Value), String> {
        let x = URL_SAFE_NO_PAD.encode(public);
        let key = DecodingKey::from_ed_components(&x).map_err(|e| e.to_string())?;
        let jwk = json!({"kty": "OKP", "crv": "Ed25519", "x": x, "alg": "EdDSA", "use": "sig"});
        Ok((key, jwk))
    }
}
