//! The keys that sign ID tokens: P-256 (ES256), private halves sealed with the
//! master key in the store's `signing_keys` under purpose `sso`, one `current`
//! (signs) and one `previous` (still in the JWKS, so ID tokens signed before
//! the last rotation verify). The same ring discipline as the partner ring's
//! Ed25519 keys: every instance re-reads the ring at most `STALE` after it last
//! did, and at once when it meets a `kid` it does not know.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{DecodingKey, EncodingKey};
use lendhub_domain::crypto::MasterKey;
use lendhub_store::{KeyState, SigningKeyRecord, Store, StoreError};
use p256::SecretKey;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::pkcs8::EncodePrivateKey;
use parking_lot::RwLock;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The purpose under which the identity provider's keys are stored.
pub const SSO_KEYS: &str = "sso";

/// How long an instance signs with the ring it last read.
const STALE: Duration = Duration::from_secs(30);
/// The least time between two re-reads prompted by an unknown `kid`.
const UNKNOWN_KID_BACKOFF: Duration = Duration::from_secs(1);

fn seal_purpose(purpose: &str) -> String {
    format!("signing-key/{purpose}")
}

struct Ring {
    kid: String,
    signer: EncodingKey,
    verifiers: HashMap<String, DecodingKey>,
    jwks: Value,
    read_at: Instant,
}

pub struct KeyRing {
    master_key: MasterKey,
    ring: RwLock<Ring>,
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
        let bytes: [u8; 32] = lendhub_domain::credentials::random_bytes();
        if let Ok(key) = SecretKey::from_slice(&bytes) {
            return key;
        }
    }
}

/// A new key, its private half sealed.
pub fn generate(master_key: &MasterKey, now_ms: i64) -> SigningKeyRecord {
    let secret = random_secret();
    let public = secret
        .public_key()
        .to_encoded_point(false)
        .as_bytes()
        .to_vec();
    let kid = coordinates(&public).map_or_else(String::new, |(x, y)| thumbprint(&x, &y));
    SigningKeyRecord {
        kid,
        purpose: SSO_KEYS.to_owned(),
        state: KeyState::Current,
        sealed_private: master_key.seal(&seal_purpose(SSO_KEYS), secret.to_bytes().as_slice()),
        public_key: public,
        created_at_ms: now_ms,
    }
}

fn fault(message: impl std::fmt::Display) -> StoreError {
    StoreError::Internal(message.to_string())
}

fn build(master_key: &MasterKey, records: &[SigningKeyRecord]) -> Result<Ring, StoreError> {
    let current = records
        .iter()
        .find(|k| k.state == KeyState::Current)
        .ok_or_else(|| fault("no current ID-token signing key"))?;
    let scalar = master_key
        .open(&seal_purpose(&current.purpose), &current.sealed_private)
        .map_err(|_| fault("the ID-token signing key does not open with this master key"))?;
    let secret = SecretKey::from_slice(&scalar)
        .map_err(|_| fault("a stored ID-token signing key is not a P-256 scalar"))?;
    let der = secret
        .to_pkcs8_der()
        .map_err(|e| fault(format!("encoding the ID-token signing key: {e}")))?;
    let mut verifiers = HashMap::new();
    let mut jwks = Vec::new();
    for k in records {
        let (x, y) = coordinates(&k.public_key)
            .ok_or_else(|| fault("a stored P-256 public key is malformed"))?;
        // jsonwebtoken takes the SEC1 point itself for an EC verifying key.
        verifiers.insert(k.kid.clone(), DecodingKey::from_ec_der(&k.public_key));
        jwks.push(json!({
            "kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": k.kid, "alg": "ES256", "use": "sig",
        }));
    }
    Ok(Ring {
        kid: current.kid.clone(),
        signer: EncodingKey::from_ec_der(der.as_bytes()),
        verifiers,
        jwks: json!({ "keys": jwks }),
        read_at: Instant::now(),
    })
}

impl KeyRing {
    /// Reads the ring, creating its first key if it has none (instances
    /// starting together agree on one).
    pub async fn load(
        store: &dyn Store,
        master_key: &MasterKey,
        now_ms: i64,
    ) -> Result<Self, StoreError> {
        let mut records = store.signing_keys(SSO_KEYS).await?;
        if records.is_empty() {
            store
                .ensure_signing_key(generate(master_key, now_ms))
                .await?;
            records = store.signing_keys(SSO_KEYS).await?;
        }
        Ok(Self {
            master_key: master_key.clone(),
            ring: RwLock::new(build(master_key, &records)?),
        })
    }

    async fn reread(&self, store: &dyn Store) -> Result<(), StoreError> {
        let records = store.signing_keys(SSO_KEYS).await?;
        let ring = build(&self.master_key, &records)?;
        *self.ring.write() = ring;
        Ok(())
    }

    async fn refresh_if_stale(&self, store: &dyn Store) -> Result<(), StoreError> {
        if self.ring.read().read_at.elapsed() > STALE {
            self.reread(store).await?;
        }
        Ok(())
    }

    /// The `kid` and key to sign with now.
    pub async fn signer(&self, store: &dyn Store) -> Result<(String, EncodingKey), StoreError> {
        self.refresh_if_stale(store).await?;
        let ring = self.ring.read();
        Ok((ring.kid.clone(), ring.signer.clone()))
    }

    /// The key that verifies ID tokens signed with `kid`, if it is current or previous.
    pub async fn verifier(
        &self,
        store: &dyn Store,
        kid: &str,
    ) -> Result<Option<DecodingKey>, StoreError> {
        self.refresh_if_stale(store).await?;
        let (found, read_at) = {
            let ring = self.ring.read();
            (ring.verifiers.get(kid).cloned(), ring.read_at)
        };
        if found.is_some() || read_at.elapsed() < UNKNOWN_KID_BACKOFF {
            return Ok(found);
        }
        self.reread(store).await?;
        Ok(self.ring.read().verifiers.get(kid).cloned())
    }

    /// The JSON Web Key Set: the current and the previous public keys.
    pub async fn jwks(&self, store: &dyn Store) -> Result<Value, StoreError> {
        self.refresh_if_stale(store).await?;
        Ok(self.ring.read().jwks.clone())
    }
}

/// Makes a new key current; the current one stays in the JWKS as previous.
pub async fn rotate(
    store: &dyn Store,
    master_key: &MasterKey,
    now_ms: i64,
) -> Result<String, StoreError> {
    let key = generate(master_key, now_ms);
    let kid = key.kid.clone();
    store.rotate_signing_key(key).await?;
    Ok(kid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_open_sign_and_verify() {
        let master = MasterKey::generate();
        let record = generate(&master, 0);
        assert_eq!(record.public_key.len(), 65);
        assert_eq!(record.kid.len(), 43);
        let ring = build(&master, std::slice::from_ref(&record));
        let Ok(ring) = ring else {
            panic!("the ring builds");
        };
        let header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        let token = jsonwebtoken::encode(&header, &json!({"a": 1}), &ring.signer);
        let Ok(token) = token else { panic!("signs") };
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let key = &ring.verifiers[&record.kid];
        assert!(jsonwebtoken::decode::<Value>(&token, key, &validation).is_ok());
        assert!(
            build(&MasterKey::generate(), &[record]).is_err(),
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
