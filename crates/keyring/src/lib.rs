//! A ring of token-signing keys, whatever their algorithm: private halves
//! sealed with the master key in the store's `signing_keys`, one `current`
//! (signs) and one `previous` (still verifies, and stays in the JWKS, so
//! tokens signed before the last rotation keep verifying). Every instance
//! reads the ring from the store, so a rotation made anywhere reaches all of
//! them: each re-reads the ring at most `STALE` after it last did, and at
//! once when it meets a `kid` it does not know. The partner ring (Ed25519)
//! and the identity provider (P-256) each supply an [`Algorithm`].

use std::collections::HashMap;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use jsonwebtoken::{DecodingKey, EncodingKey};
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
    fn generate() -> NewKey;
    /// The signing key from the opened private half.
    fn signer(private: &[u8]) -> Result<EncodingKey, String>;
    /// The verifying key and the public JWK (without `kid`) of a public half.
    fn verifier(public: &[u8]) -> Result<(DecodingKey, Value), String>;
}

fn seal_purpose(purpose: &str) -> String {
    format!("signing-key/{purpose}")
}

fn fault(message: impl std::fmt::Display) -> StoreError {
    StoreError::Internal(message.to_string())
}

struct Ring {
    kid: String,
    signer: EncodingKey,
    verifiers: HashMap<String, DecodingKey>,
    jwks: Value,
    read_at: Instant,
}

pub struct KeyRing<A: Algorithm> {
    master_key: MasterKey,
    ring: RwLock<Ring>,
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
) -> Result<Ring, StoreError> {
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
        signer,
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

    /// The `kid` and key to sign with now.
    pub async fn signer(&self, store: &dyn KeyStore) -> Result<(String, EncodingKey), StoreError> {
        self.refresh_if_stale(store).await?;
        let ring = self.ring.read();
        Ok((ring.kid.clone(), ring.signer.clone()))
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

/// Builds a ring from records, for an algorithm's own tests.
pub fn ring_for_test<A: Algorithm>(
    master_key: &MasterKey,
    records: &[SigningKeyRecord],
) -> Result<(EncodingKey, HashMap<String, DecodingKey>), StoreError> {
    build::<A>(master_key, records).map(|r| (r.signer, r.verifiers))
}
