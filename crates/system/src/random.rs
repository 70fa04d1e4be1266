//! The operating system's randomness, drawn here and handed to the domain's
//! pure constructors.

use lendhub_domain::crypto::MasterKey;
use lendhub_domain::partner::credentials::{self, AccessToken, Environment, NewClientCredentials};
use lendhub_domain::sandbox::ids::SandboxId;

/// `N` random bytes from the operating system's generator.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    rand::fill(&mut buf[..]);
    buf
}

/// `bytes` random bytes as token text (base64url without padding).
pub fn random_token(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::fill(buf.as_mut_slice());
    credentials::token_text(&buf)
}

/// A random (version 4) UUID, as RFC 4122 writes it: the Open Banking
/// standard's interaction ids.
pub fn random_uuid() -> String {
    let mut b: [u8; 16] = random_bytes();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// A new client's id and secret; the secret exists in clear only in the result.
pub fn generate_client(env: Environment) -> NewClientCredentials {
    credentials::client_credentials(env, random_bytes(), random_bytes())
}

/// A new opaque bearer token issued at `now_ms`.
pub fn generate_access_token(now_ms: i64) -> AccessToken {
    credentials::access_token(now_ms, random_bytes())
}

/// A new secret API key for `env`, made at `now_ms`.
pub fn generate_api_key(env: Environment, now_ms: i64) -> credentials::ApiKey {
    credentials::api_key(env, now_ms, random_bytes())
}

/// A new webhook signing secret (`whsec_…`).
pub fn webhook_secret() -> String {
    lendhub_domain::webhooks::endpoint::secret_text(random_bytes())
}

/// A sandbox id with fresh random bits.
pub trait NewRandom {
    fn new_random(unix_ms: u64) -> Self;
}

impl<K> NewRandom for SandboxId<K> {
    fn new_random(unix_ms: u64) -> Self {
        SandboxId::generate(unix_ms, rand::random())
    }
}

/// A hub id of kind `T` made at `unix_ms`, with fresh random bits.
pub fn new_hub_id<T: lendhub_domain::ids::HubId>(unix_ms: u64) -> T {
    T::generate(unix_ms, rand::random())
}

/// A master key from fresh random bytes.
pub trait GenerateKey {
    fn generate() -> Self;
}

impl GenerateKey for MasterKey {
    fn generate() -> Self {
        MasterKey::from_bytes(rand::random())
    }
}

/// Sealing under a master key with a fresh random nonce.
pub trait Seal {
    /// nonce (24 bytes) ‖ ciphertext+tag.
    fn seal(&self, purpose: &str, plaintext: &[u8]) -> Vec<u8>;
}

impl Seal for MasterKey {
    fn seal(&self, purpose: &str, plaintext: &[u8]) -> Vec<u8> {
        self.seal_with_nonce(purpose, plaintext, rand::random())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_values_differ_and_seals_open() {
        assert_ne!(random_token(32), random_token(32));
        assert_ne!(
            generate_access_token(0).token,
            generate_access_token(0).token
        );
        let a: SandboxId = SandboxId::new_random(0);
        let b: SandboxId = SandboxId::new_random(0);
        assert_ne!(a, b);
        let key = MasterKey::generate();
        let sealed = key.seal("p", b"x");
        assert_ne!(sealed, key.seal("p", b"x"), "a fresh nonce each time");
        assert_eq!(key.open("p", &sealed).ok(), Some(b"x".to_vec()));
        assert!(webhook_secret().starts_with("whsec_"));
    }
}
