//! A ring of token-signing keys, whatever their algorithm: private halves
//! sealed with the master key in the store's `signing_keys`, one `current`
//! (signs) and one `previous` (still verifies, and stays in the JWKS, so
//! tokens signed before the last rotation keep verifying). Every instance
//! reads the ring from the store, so a rotation made anywhere reaches all of
//! them: each re-reads the ring at most `STALE` after it last did, and at
//! once when it meets a `kid` it does not know. The partner ring (Ed25519)
//! and the identity provider (P-256) each supply an [`Algorithm`].
//!
//! The ring signs tokens itself ([`KeyRing::sign`]) with a key it builds
//! once per read: `jsonwebtoken::encode` rebuilds the signing key from its
//! DER for every token (a scalar multiplication to re-derive the public
//! half), which doubled the cost of each signature. Verification stays with
//! `jsonwebtoken`.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{DecodingKey, Header};
use lendhub_domain::crypto::MasterKey;
use lendhub_store::{KeyState, KeyStore, SigningKeyRecord, StoreError};
use lendhub_system::Seal;
use parking_lot::RwLock;
use serde_json::{Value, json};

/// How long an instance signs with the ring it last read.
const STALE: Duration = Duration::from_secs(30);
/// The least time between two re-reads prompted by an unknown `kid`.
const UNKNOWN_KID_BACKOFF: Duration = Duration::from_secs(1);

/// A new key pair: the private half to seal, the public half, and its `kid`.
pub struct NewKey {
    pub private: Vec<u8>,
    pub public: Vec<u8>,
    pub kid: String,
}

/// What differs between algorithms; the ring discipline is shared.
pub trait Algorithm: Send + Sync + 'static {
    /// The purpose the keys are stored under.
    const PURPOSE: &'static str;
    /// For messages: whose keys these are.
    const NAME: &'static str;
    /// The JWS `alg` of its signatures.
    const JWS: jsonwebtoken::Algorithm;
    /// A private half made ready to sign.
    type SigningKey: Send + Sync + 'static;
    fn generate() -> NewKey;
    /// The signing key from the opened private half.
    fn signer(private: &[u8]) -> Result<Self::SigningKey, Malformed>;
    /// The JWS signature of `message` (for ECDSA, `r || s`).
    fn sign(key: &Self::SigningKey, message: &[u8]) -> Vec<u8>;
    /// The verifying key and the public JWK (without `kid`) of a public half.
    fn verifier(public: &[u8]) -> Result<(DecodingKey, Value), Malformed>;
}

/// A stored half that is not a key of the ring's algorithm: the record is
/// corrupt, or of another algorithm. Says what was wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Malformed(pub &'static str);

fn seal_purpose(purpose: &str) -> String {
    format!("signing-key/{purpose}")
}

fn fault(message: impl std::fmt::Display) -> StoreError {
    StoreError::Internal(message.to_string())
}

struct Ring<A: Algorithm> {
    kid: String,
    signer: Arc<A::SigningKey>,
    verifiers: HashMap<String, DecodingKey>,
    jwks: Value,
    read_at: Instant,
}

pub struct KeyRing<A: Algorithm> {
    master_key: MasterKey,
    ring: RwLock<Ring<A>>,
    algorithm: PhantomData<A>,
}

/// A new key of `A`, its private half sealed.
pub fn generate<A: Algorithm>(master_key: &MasterKey, now_ms: i64) -> SigningKeyRecord {
    let key = A::generate();
    SigningKeyRecord {
        kid: key.kid,
        purpose: A::PURPOSE.to_owned(),
        state: KeyState::Current,
        sealed_private: master_key.seal(&seal_purpose(A::PURPOSE), &key.private),
        public_key: key.public,
        created_at_ms: now_ms,
    }
}

fn build<A: Algorithm>(
    master_key: &MasterKey,
    records: &[SigningKeyRecord],
) -> Result<Ring<A>, StoreError> {
    let name = A::NAME;
    let current = records
        .iter()
        .find(|k| k.state == KeyState::Current)
        .ok_or_else(|| fault(format!("no current {name} signing key")))?;
    let private = master_key
        .open(&seal_purpose(&current.purpose), &current.sealed_private)
        .map_err(|_| {
            fault(format!(
                "the {name} signing key does not open with this master key"
            ))
        })?;
    let signer = A::signer(&private).map_err(|e| fault(format!("the {name} signing key: {e}")))?;
    let mut verifiers = HashMap::new();
    let mut jwks = Vec::new();
    for k in records {
        let (key, mut jwk) =
            A::verifier(&k.public_key).map_err(|e| fault(format!("a {name} public key: {e}")))?;
        jwk["kid"] = json!(k.kid);
        verifiers.insert(k.kid.clone(), key);
        jwks.push(jwk);
    }
    Ok(Ring {
        kid: current.kid.clone(),
        signer: Arc::new(signer),
        verifiers,
        jwks: json!({ "keys": jwks }),
        read_at: Instant::now(),
    })
}

impl<A: Algorithm> KeyRing<A> {
    /// Reads the ring, creating its first key if it has none (instances
    /// starting together agree on one).
    pub async fn load(
        store: &dyn KeyStore,
        master_key: &MasterKey,
        now_ms: i64,
    ) -> Result<Self, StoreError> {
        let mut records = store.signing_keys(A::PURPOSE).await?;
        if records.is_empty() {
            store
                .ensure_signing_key(generate::<A>(master_key, now_ms))
                .await?;
            records = store.signing_keys(A::PURPOSE).await?;
        }
        Ok(Self {
            master_key: master_key.clone(),
            ring: RwLock::new(build::<A>(master_key, &records)?),
            algorithm: PhantomData,
        })
    }

    async fn reread(&self, store: &dyn KeyStore) -> Result<(), StoreError> {
        let records = store.signing_keys(A::PURPOSE).await?;
        let ring = build::<A>(&self.master_key, &records)?;
        *self.ring.write() = ring;
        Ok(())
    }

    /// Re-reads the ring if this instance last read it more than `STALE` ago,
    /// so a rotation made elsewhere (which may retire a key) reaches it.
    pub async fn refresh_if_stale(&self, store: &dyn KeyStore) -> Result<(), StoreError> {
        if self.ring.read().read_at.elapsed() > STALE {
            self.reread(store).await?;
        }
        Ok(())
    }

    /// `claims` as a compact JWS signed with the current key: `header`
    /// gets this ring's `alg` and the key's `kid`.
    pub async fn sign(
        &self,
        store: &dyn KeyStore,
        mut header: Header,
        claims: &impl serde::Serialize,
    ) -> Result<String, StoreError> {
        self.refresh_if_stale(store).await?;
        let (kid, key) = {
            let ring = self.ring.read();
            (ring.kid.clone(), ring.signer.clone())
        };
        header.alg = A::JWS;
        header.kid = Some(kid);
        compact::<A>(&key, &header, claims)
    }

    /// The key that verifies tokens signed with `kid`, if it is current or previous.
    pub async fn verifier(
        &self,
        store: &dyn KeyStore,
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

    /// Whether `kid` is still in the ring as last read.
    pub fn knows(&self, kid: &str) -> bool {
        self.ring.read().verifiers.contains_key(kid)
    }

    /// The JSON Web Key Set: the current and the previous public keys.
    pub async fn jwks(&self, store: &dyn KeyStore) -> Result<Value, StoreError> {
        self.refresh_if_stale(store).await?;
        Ok(self.ring.read().jwks.clone())
    }
}

/// Makes a new key of `A` current; the current one stays valid for
/// verification (and in the JWKS) as previous.
pub async fn rotate<A: Algorithm>(
    store: &dyn KeyStore,
    master_key: &MasterKey,
    now_ms: i64,
) -> Result<String, StoreError> {
    let key = generate::<A>(master_key, now_ms);
    let kid = key.kid.clone();
    store.rotate_signing_key(key).await?;
    Ok(kid)
}

/// JWS compact serialization (RFC 7515 §7.1): the header and the claims,
/// each as base64url JSON, and the signature of the two joined by a dot.
pub fn compact<A: Algorithm>(
    key: &A::SigningKey,
    header: &Header,
    claims: &impl serde::Serialize,
) -> Result<String, StoreError> {
    let mut token = part::<A>(header)?;
    token.push('.');
    token.push_str(&part::<A>(claims)?);
    let signature = A::sign(key, token.as_bytes());
    token.push('.');
    token.push_str(&URL_SAFE_NO_PAD.encode(signature));
    Ok(token)
}

/// One part of a compact JWS: the value as base64url JSON.
fn part<A: Algorithm>(value: &impl serde::Serialize) -> Result<String, StoreError> {
    serde_json::to_vec(value)
        .map(|json| URL_SAFE_NO_PAD.encode(json))
        .map_err(|e| fault(format!("encoding a {} token: {e}", A::NAME)))
}

/// A ring's signing key and its verifying keys by `kid`.
pub type TestRing<A> = (
    Arc<<A as Algorithm>::SigningKey>,
    HashMap<String, DecodingKey>,
);

/// Builds a ring from records, for an algorithm's own tests.
pub fn ring_for_test<A: Algorithm>(
    master_key: &MasterKey,
    records: &[SigningKeyRecord],
) -> Result<TestRing<A>, StoreError> {
    build::<A>(master_key, records).map(|r| (r.signer, r.verifiers))
}
