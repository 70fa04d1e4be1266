//! Client credentials and access tokens.
//!
//! Client secrets and tokens are high-entropy random strings, so a keyed fast
//! hash (HMAC-SHA256 with a server-side pepper) is the right storage form: a slow
//! password hash would buy nothing against guessing and would cap throughput.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The environment a key belongs to; the key prefix must match the service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Environment {
    Test,
    Live,
}

impl Environment {
    fn tag(self) -> &'static str {
        match self {
            Environment::Test => "test",
            Environment::Live => "live",
        }
    }

    pub fn client_id_prefix(self) -> String {
        format!("pk_{}_", self.tag())
    }

    pub fn secret_prefix(self) -> String {
        format!("sk_{}_", self.tag())
    }

    /// Which environment a presented key claims, from its prefix.
    pub fn of_key(key: &str) -> Option<Self> {
        [Environment::Test, Environment::Live]
            .into_iter()
            .find(|env| {
                key.starts_with(&env.client_id_prefix()) || key.starts_with(&env.secret_prefix())
            })
    }
}

/// A freshly minted client: the secret exists in clear only here.
pub struct NewClientCredentials {
    pub client_id: String,
    pub client_secret: String,
}

pub fn generate_client(env: Environment) -> NewClientCredentials {
    NewClientCredentials {
        client_id: format!("{}{}", env.client_id_prefix(), random_token(18)),
        client_secret: format!("{}{}", env.secret_prefix(), random_token(32)),
    }
}

/// `bytes` random bytes, base64url without padding.
pub fn random_token(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::fill(buf.as_mut_slice());
    URL_SAFE_NO_PAD.encode(buf)
}

/// Keyed hash for client secrets.
pub fn hash_secret(pepper: &[u8; 32], secret: &str) -> [u8; 32] {
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(pepper).unwrap_or_else(|_| unreachable_hmac());
    mac.update(secret.as_bytes());
    mac.finalize().into_bytes().into()
}

/// HMAC accepts keys of any length, so construction cannot fail.
fn unreachable_hmac() -> ! {
    unreachable!("HMAC-SHA256 accepts any key length")
}

pub fn secret_matches(pepper: &[u8; 32], presented: &str, stored_hash: &[u8]) -> bool {
    hash_secret(pepper, presented).ct_eq(stored_hash).into()
}

/// Opaque bearer token: 256 random bits. Only its SHA-256 is stored; a pepper
/// adds nothing for a value that cannot be guessed.
pub fn generate_access_token() -> String {
    random_token(32)
}

pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_clients_carry_environment_prefixes_and_enough_entropy() {
        let c = generate_client(Environment::Test);
        assert!(c.client_id.starts_with("pk_test_"));
        assert!(c.client_secret.starts_with("sk_test_"));
        // 32 bytes of base64url = 43 characters = 256 bits.
        assert_eq!(c.client_secret.len(), "sk_test_".len() + 43);
        assert_eq!(Environment::of_key(&c.client_id), Some(Environment::Test));
        assert_eq!(Environment::of_key("sk_live_abc"), Some(Environment::Live));
        assert_eq!(Environment::of_key("abc"), None);
    }

    #[test]
    fn secrets_verify_only_with_the_same_pepper_and_value() {
        let pepper = [7u8; 32];
        let h = hash_secret(&pepper, "sk_test_abc");
        assert!(secret_matches(&pepper, "sk_test_abc", &h));
        assert!(!secret_matches(&pepper, "sk_test_abd", &h));
        assert!(!secret_matches(&[8u8; 32], "sk_test_abc", &h));
    }

    #[test]
    fn tokens_are_unique_and_hash_stably() {
        let a = generate_access_token();
        let b = generate_access_token();
        assert_ne!(a, b);
        assert_eq!(token_hash(&a), token_hash(&a));
        assert!(a.len() >= 43);
    }
}
