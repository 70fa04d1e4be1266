//! The keys that sign ID tokens: P-256 (ES256), in the shared key ring
//! (`lendhub_keyring`) under purpose `sso`: sealed private halves, current
//! and previous (still in the JWKS, so ID tokens signed before the last
//! rotation verify), re-read by every instance. `lendhub sso keys rotate`
//! rotates with overlap. Signatures are made with `ring`, already in the
//! tree for TLS: its P-256 signing is several times faster than RustCrypto's.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::DecodingKey;
use lendhub_keyring::{Algorithm, Malformed, NewKey};
use p256::SecretKey;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The purpose under which the identity provider's keys are stored.
pub const SSO_KEYS: &str = "sso";

pub struct SsoKeys;

pub type KeyRing = lendhub_keyring::KeyRing<SsoKeys>;

/// Makes a new key current; the current one stays in the JWKS as previous.
pub async fn rotate(
    store: &dyn lendhub_store::KeyStore,
    master_key: &lendhub_domain::crypto::MasterKey,
    now_ms: i64,
) -> Result<String, lendhub_store::StoreError> {
    lendhub_keyring::rotate::<SsoKeys>(store, master_key, now_ms).await
}

/// The affine coordinates of a SEC1 uncompressed point (`04 ‖ x ‖ y`), base64url.
fn coordinates(sec1: &[u8]) -> Option<(String, String)> {
    if sec1.len() != 65 || sec1[0] != 4 {
        return None;
    }
    Some((
        URL_SAFE_NO_PAD.encode(&sec1[1..33]),
        URL_SAFE_NO_PAD.encode(&sec1[33..]),
    ))
}

/// RFC 7638 thumbprint of a P-256 public key, as its `kid`: the SHA-256 of
/// the required members in lexicographic order, without whitespace.
pub fn thumbprint(x: &str, y: &str) -> String {
    let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

/// A fresh P-256 private key from the operating system's generator. A random
/// 32-byte string is a valid scalar except with probability about 2^-32.
fn random_secret() -> SecretKey {
    loop {
        let bytes: [u8; 32] = lendhub_system::random_bytes();
        if let Ok(key) = SecretKey::from_slice(&bytes) {
            return key;
        }
    }
}

impl Algorithm for SsoKeys {
    const PURPOSE: &'static str = SSO_KEYS;
    const NAME: &'static str = "ID-token";
    const JWS: jsonwebtoken::Algorithm = jsonwebtoken::Algorithm::ES256;
    type SigningKey = EcdsaKeyPair;

    fn generate() -> NewKey {
        let secret = random_secret();
        let public = secret
            .public_key()
            .to_encoded_point(false)
            .as_bytes()
            .to_vec();
        let kid = coordinates(&public).map_or_else(String::new, |(x, y)| thumbprint(&x, &y));
        NewKey {
            private: secret.to_bytes().to_vec(),
            public,
            kid,
        }
    }

    fn signer(private: &[u8]) -> Result<EcdsaKeyPair, Malformed> {
        let secret = SecretKey::from_slice(private).map_err(|_| Malformed("not a P-256 scalar"))?;
        let public = secret.public_key().to_encoded_point(false);
        EcdsaKeyPair::from_private_key_and_public_key(
            &ECDSA_P256_SHA256_FIXED_SIGNING,
            private,
            public.as_bytes(),
            &SystemRandom::new(),
        )
        .map_err(|_| Malformed("not a P-256 key pair"))
    }

    fn sign(key: &EcdsaKeyPair, message: &[u8]) -> Vec<u8> {
        // Only fails if the system's random source does.
        key.sign(&SystemRandom::new(), message)
            .map(|signature| signature.as_ref().to_vec())
            .unwrap_or_default()
    }

    fn verifier(public: &[u8]) -> Result<(DecodingKey, Value), Malformed> {
        let (x, y) = coordinates(public).ok_or(Malformed("a malformed P-256 point"))?;
        // jsonwebtoken takes the SEC1 point itself for an EC verifying key.
        let jwk =
            json!({"kty": "EC", "crv": "P-256", "x": x, "y": y, "alg": "ES256", "use": "sig"});
        Ok((DecodingKey::from_ec_der(public), jwk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lendhub_domain::crypto::MasterKey;
    use lendhub_system::GenerateKey;

    #[test]
    fn generated_keys_open_sign_and_verify() {
        let master = MasterKey::generate();
        let record = lendhub_keyring::generate::<SsoKeys>(&master, 0);
        assert_eq!(record.public_key.len(), 65);
        assert_eq!(record.kid.len(), 43);
        let ring =
            lendhub_keyring::ring_for_test::<SsoKeys>(&master, std::slice::from_ref(&record));
        let Ok((signer, verifiers)) = ring else {
            panic!("the ring builds");
        };
        let header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        let token = lendhub_keyring::compact::<SsoKeys>(&signer, &header, &json!({"a": 1}));
        let Ok(token) = token else { panic!("signs") };
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let key = &verifiers[&record.kid];
        assert!(jsonwebtoken::decode::<Value>(&token, key, &validation).is_ok());
        assert!(
            lendhub_keyring::ring_for_test::<SsoKeys>(&MasterKey::generate(), &[record]).is_err(),
            "other master key"
        );
    }

    #[test]
    fn thumbprint_matches_rfc7638_for_ec() {
        // The canonical form is {"crv","kty","x","y"} in that order.
        let t = thumbprint("AAAA", "BBBB");
        let expected = URL_SAFE_NO_PAD.encode(Sha256::digest(
            br#"{"crv":"P-256","kty":"EC","x":"AAAA","y":"BBBB"}"#,
        ));
        assert_eq!(t, expected);
    }
}
