//! The keys that sign partner access tokens: Ed25519, private halves sealed
//! with the master key in the store, one `current` (signs) and one `previous`
//! (still verifies tokens issued before the last rotation). Every instance
//! reads the ring from the store, so a rotation made anywhere (`lendhub keys
//! rotate`) reaches all of them: each re-reads the ring at most `STALE` after
//! it last did, and at once when it meets a token signed by a key it does
//! not know.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::SigningKey;
use ed25519_dalek::pkcs8::EncodePrivateKey;
use jsonwebtoken::{DecodingKey, EncodingKey};
use lendhub_domain::crypto::MasterKey;
use lendhub_store::{KeyState, SigningKeyRecord, Store, StoreError};
use parking_lot::RwLock;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The purpose under which the partner ring's keys are stored.
pub const PARTNER_KEYS: &str = "partner";

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
    purpose: &'static str,
    master_key: MasterKey,
    ring: RwLock<Ring>,
}

/// RFC 7638 thumbprint of an Ed25519 public key, as its `kid`.
fn thumbprint(x: &str) -> String {
    let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}"#);
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

/// A new key for `purpose`, its private half sealed.
pub fn generate(master_key: &MasterKey, purpose: &str, now_ms: i64) -> SigningKeyRecord {
    let seed: [u8; 32] = lendhub_domain::credentials::random_bytes();
    let key = SigningKey::from_bytes(&seed);
    let public = key.verifying_key().to_bytes();
    SigningKeyRecord {
        kid: thumbprint(&URL_SAFE_NO_PAD.encode(public)),
        purpose: purpose.to_owned(),
        state: KeyState::Current,
        sealed_private: master_key.seal(&seal_purpose(purpose), &seed),
        public_key: public.to_vec(),
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
        .ok_or_else(|| fault("no current signing key"))?;
    let seed = master_key
        .open(&seal_purpose(&current.purpose), &current.sealed_private)
        .map_err(|_| fault("the signing key does not open with this master key"))?;
    let seed: [u8; 32] = seed
        .as_slice()
        .try_into()
        .map_err(|_| fault("a stored signing key has the wrong length"))?;
    let der = SigningKey::from_bytes(&seed)
        .to_pkcs8_der()
        .map_err(|e| fault(format!("encoding the signing key: {e}")))?;
    let mut verifiers = HashMap::new();
    let mut jwks = Vec::new();
    for k in records {
        let x = URL_SAFE_NO_PAD.encode(&k.public_key);
        let key = DecodingKey::from_ed_components(&x).map_err(fault)?;
        verifiers.insert(k.kid.clone(), key);
        jwks.push(json!({
            "kty": "OKP", "crv": "Ed25519", "x": x, "kid": k.kid, "alg": "EdDSA", "use": "sig",
        }));
    }
    Ok(Ring {
        kid: current.kid.clone(),
        signer: EncodingKey::from_ed_der(der.as_bytes()),
        verifiers,
        jwks: json!({ "keys": jwks }),
        read_at: Instant::now(),
    })
}

impl KeyRing {
    /// Reads the ring of `purpose`, creating its first key if it has none
    /// (instances starting together agree on one).
    pub async fn load(
        store: &dyn Store,
        master_key: &MasterKey,
        purpose: &'static str,
        now_ms: i64,
    ) -> Result<Self, StoreError> {
        let mut records = store.signing_keys(purpose).await?;
        if records.is_empty() {
            store
                .ensure_signing_key(generate(master_key, purpose, now_ms))
                .await?;
            records = store.signing_keys(purpose).await?;
        }
        Ok(Self {
            purpose,
            master_key: master_key.clone(),
            ring: RwLock::new(build(master_key, &records)?),
        })
    }

    async fn reread(&self, store: &dyn Store) -> Result<(), StoreError> {
        let records = store.signing_keys(self.purpose).await?;
        let ring = build(&self.master_key, &records)?;
        *self.ring.write() = ring;
        Ok(())
    }

    /// Re-reads the ring if this instance last read it more than `STALE` ago,
    /// so a rotation made elsewhere (which may retire a key) reaches it.
    pub async fn refresh_if_stale(&self, store: &dyn Store) -> Result<(), StoreError> {
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

    /// The key that verifies tokens signed with `kid`, if it is current or previous.
    pub async fn verifier(
        &self,
        store: &dyn Store,
        kid: &str,
    ) -> Result<Option<DecodingKey>, StoreError> {
        let (found, read_at) = {
            let ring = self.ring.read();
            (ring.verifiers.get(kid).cloned(), ring.read_at)
        };
        if found.is_some() {
            return Ok(found);
        }
        if read_at.elapsed() < UNKNOWN_KID_BACKOFF {
            return Ok(None);
        }
        self.reread(store).await?;
        Ok(self.ring.read().verifiers.get(kid).cloned())
    }

    /// Whether `kid` is still in the ring as last read.
    pub fn knows(&self, kid: &str) -> bool {
        self.ring.read().verifiers.contains_key(kid)
    }

    /// The JSON Web Key Set: the current and the previous public keys.
    pub async fn jwks(&self, store: &dyn Store) -> Result<Value, StoreError> {
        self.refresh_if_stale(store).await?;
        Ok(self.ring.read().jwks.clone())
    }
}

/// Makes a new key current; the current one stays valid for verification.
pub async fn rotate(
    store: &dyn Store,
    master_key: &MasterKey,
    purpose: &str,
    now_ms: i64,
) -> Result<String, StoreError> {
    let key = generate(master_key, purpose, now_ms);
    let kid = key.kid.clone();
    store.rotate_signing_key(key).await?;
    Ok(kid)
}
