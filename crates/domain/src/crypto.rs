//! Secrets at rest: a master key derives purpose-specific subkeys; webhook
//! signing secrets are sealed with XChaCha20-Poly1305 under one of them.

use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::secret::Secret;

#[derive(Clone)]
pub struct MasterKey([u8; 32]);

/// A key derived from the master key for one purpose: never printed.
pub type DerivedKey = Secret<[u8; 32]>;

impl std::fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MasterKey(<redacted>)")
    }
}

#[derive(Debug, thiserror::Error)]
#[error("sealed secret could not be opened (wrong master key or corrupted data)")]
pub struct OpenError;

impl MasterKey {
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The configured and stored form: standard base64 of exactly 32 bytes.
    pub fn from_base64(encoded: &str) -> Result<Self, &'static str> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .map_err(|_| "not base64")?;
        <[u8; 32]>::try_from(bytes.as_slice())
            .map(Self)
            .map_err(|_| "must decode to exactly 32 bytes")
    }

    pub fn to_base64(&self) -> String {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(self.0)
    }

    /// A subkey for one purpose, so no two uses share key material.
    pub fn derive(&self, purpose: &str) -> DerivedKey {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC-SHA256 accepts any key length"));
        mac.update(purpose.as_bytes());
        Secret::new(mac.finalize().into_bytes().into())
    }

    /// nonce (24 bytes) ‖ ciphertext+tag. The nonce must be random and used
    /// once (`lendhub-system`'s `Seal` draws it).
    pub fn seal_with_nonce(
        &self,
        purpose: &str,
        plaintext: &[u8],
        nonce_bytes: [u8; 24],
    ) -> Vec<u8> {
        let cipher = XChaCha20Poly1305::new(&(*self.derive(purpose).expose()).into());
        let nonce = XNonce::from(nonce_bytes);
        let mut out = nonce_bytes.to_vec();
        // Encryption with a valid key and nonce only fails for plaintexts over
        // 256 GiB; our secrets are tens of bytes.
        let sealed = cipher
            .encrypt(&nonce, plaintext)
            .unwrap_or_else(|_| unreachable!("plaintext within AEAD limits"));
        out.extend_from_slice(&sealed);
        out
    }

    pub fn open(&self, purpose: &str, sealed: &[u8]) -> Result<Vec<u8>, OpenError> {
        if sealed.len() < 24 {
            return Err(OpenError);
        }
        let (nonce, body) = sealed.split_at(24);
        let cipher = XChaCha20Poly1305::new(&(*self.derive(purpose).expose()).into());
        let nonce = XNonce::from_slice(nonce);
        cipher.decrypt(nonce, body).map_err(|_| OpenError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_round_trips_and_rejects_tampering_and_other_purposes() {
        let key = MasterKey::from_bytes([3; 32]);
        let sealed = key.seal_with_nonce("webhook-secret", b"whsec_abc", [4; 24]);
        assert_eq!(
            key.open("webhook-secret", &sealed).ok(),
            Some(b"whsec_abc".to_vec())
        );
        assert!(key.open("other", &sealed).is_err());
        let mut tampered = sealed.clone();
        if let Some(last) = tampered.last_mut() {
            *last ^= 1;
        }
        assert!(key.open("webhook-secret", &tampered).is_err());
        assert!(
            MasterKey::from_bytes([5; 32])
                .open("webhook-secret", &sealed)
                .is_err()
        );
    }

    #[test]
    fn derived_keys_differ_by_purpose() {
        let key = MasterKey::from_bytes([1; 32]);
        assert_ne!(key.derive("a").expose(), key.derive("b").expose());
    }
}
