//! Token-signing keys, and the deployment-wide settings instances agree on.

use async_trait::async_trait;

use crate::error::StoreError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyState {
    /// Signs new tokens; one per purpose.
    Current,
    /// Verifies tokens issued before the last rotation.
    Previous,
}

impl KeyState {
    pub fn as_str(self) -> &'static str {
        match self {
            KeyState::Current => "current",
            KeyState::Previous => "previous",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "current" => Some(KeyState::Current),
            "previous" => Some(KeyState::Previous),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct SigningKeyRecord {
    pub kid: String,
    /// Which issuer uses it, e.g. `partner`.
    pub purpose: String,
    pub state: KeyState,
    /// The private key, sealed with the master key.
    pub sealed_private: Vec<u8>,
    pub public_key: Vec<u8>,
    pub created_at_ms: i64,
}

#[async_trait]
pub trait KeyStore: Send + Sync {
    /// Stores `value` under `name` unless a value is already there; returns the
    /// stored value. Lets instances agree on deployment-wide facts (the
    /// master-key check) without a race on who writes first.
    async fn bind_setting(&self, name: &str, value: &[u8]) -> Result<Vec<u8>, StoreError>;

    /// The current and previous keys of `purpose`, current first.
    async fn signing_keys(&self, purpose: &str) -> Result<Vec<SigningKeyRecord>, StoreError>;
    /// Stores `key` as the current key of its purpose unless one exists
    /// (instances starting together agree on one).
    async fn ensure_signing_key(&self, key: SigningKeyRecord) -> Result<(), StoreError>;
    /// Makes `key` current, the current key previous, and drops the previous one.
    async fn rotate_signing_key(&self, key: SigningKeyRecord) -> Result<(), StoreError>;
}
