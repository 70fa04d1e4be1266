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

use crate::secret::Secret;

/// The environment a key belongs to; the key prefix must match the service.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Environment {
    Test,
    Live,
}

impl Environment {
    pub const ALL: [Environment; 2] = [Environment::Live, Environment::Test];

    fn tag(self) -> &'static str {
        match self {
            Environment::Test => "test",
            Environment::Live => "live",
        }
    }

    /// As stored and as shown: `live` or `test`.
    pub fn as_str(self) -> &'static str {
        self.tag()
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.tag() == raw)
    }

    pub fn livemode(self) -> bool {
        self == Environment::Live
    }

    pub fn client_id_prefix(self) -> &'static str {
        match self {
            Environment::Test => "pk_test_",
            Environment::Live => "pk_live_",
        }
    }

    pub fn secret_prefix(self) -> &'static str {
        match self {
            Environment::Test => "sk_test_",
            Environment::Live => "sk_live_",
        }
    }

    /// Which environment a presented key claims, from its prefix.
    pub fn of_key(key: &str) -> Option<Self> {
        [Environment::Test, Environment::Live]
            .into_iter()
            .find(|env| {
                key.starts_with(env.client_id_prefix()) || key.starts_with(env.secret_prefix())
            })
    }
}

/// A freshly minted client: the secret exists in clear only here.
pub struct NewClientCredentials {
    pub client_id: String,
    pub client_secret: Secret<String>,
}

/// A client's credentials from 144 random bits for its id and 256 for its
/// secret (`lendhub-system` draws them).
pub fn client_credentials(
    env: Environment,
    id_random: [u8; 18],
    secret_random: [u8; 32],
) -> NewClientCredentials {
    NewClientCredentials {
        client_id: format!("{}{}", env.client_id_prefix(), token_text(&id_random)),
        client_secret: Secret::new(format!(
            "{}{}",
            env.secret_prefix(),
            token_text(&secret_random)
        )),
    }
}

/// Bytes as token text: base64url without padding.
pub fn token_text(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
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

/// An opaque bearer token in two halves: a selector that finds its row and a
/// 256-bit verifier of which only the SHA-256 is stored. The selector leads
/// with the issue time in milliseconds, so new rows append to the end of the
/// index instead of landing on random pages (one page per batch, not one per
/// token), and carries 80 random bits of its own.
pub struct AccessToken {
    pub token: String,
    pub selector: [u8; 16],
    pub verifier_hash: [u8; 32],
}

const SELECTOR: usize = 16;
const VERIFIER: usize = 32;

/// The token issued at `now_ms` with `random` as its 80 selector bits and
/// 256 verifier bits.
pub fn access_token(now_ms: i64, random: [u8; SELECTOR + VERIFIER - 6]) -> AccessToken {
    let mut raw = [0u8; SELECTOR + VERIFIER];
    raw[..6].copy_from_slice(&now_ms.to_be_bytes()[2..]);
    raw[6..].copy_from_slice(&random);
    let mut selector = [0u8; SELECTOR];
    selector.copy_from_slice(&raw[..SELECTOR]);
    AccessToken {
        token: URL_SAFE_NO_PAD.encode(raw),
        selector,
        verifier_hash: Sha256::digest(&raw[SELECTOR..]).into(),
    }
}

/// The selector and verifier hash of a presented token, if it has the shape of one.
pub fn parse_access_token(token: &str) -> Option<([u8; 16], [u8; 32])> {
    let raw = URL_SAFE_NO_PAD.decode(token).ok()?;
    if raw.len() != SELECTOR + VERIFIER {
        return None;
    }
    let mut selector = [0u8; SELECTOR];
    selector.copy_from_slice(&raw[..SELECTOR]);
    Some((selector, Sha256::digest(&raw[SELECTOR..]).into()))
}

/// Constant-time comparison of verifier hashes.
pub fn verifier_matches(presented: &[u8; 32], stored: &[u8]) -> bool {
    presented.ct_eq(stored).into()
}

/// A partner's secret API key for the REST tier: `sk_live_` or `sk_test_`
/// and an opaque token (selector and verifier, as [`access_token`]). Its
/// public id, `key_` and the selector, names it in listings and commands.
pub struct ApiKey {
    pub key: Secret<String>,
    pub selector: [u8; 16],
    pub verifier_hash: [u8; 32],
}

pub fn api_key(env: Environment, now_ms: i64, random: [u8; SELECTOR + VERIFIER - 6]) -> ApiKey {
    let token = access_token(now_ms, random);
    ApiKey {
        key: Secret::new(format!("{}{}", env.secret_prefix(), token.token)),
        selector: token.selector,
        verifier_hash: token.verifier_hash,
    }
}

/// What a presented credential is, read from its prefix alone.
#[derive(Debug, PartialEq, Eq)]
pub enum Presented<'a> {
    /// `sk_live_…` / `sk_test_…`: the environment it claims and the rest.
    SecretKey(Environment, &'a str),
    /// `pk_live_…` / `pk_test_…`: an identifier, never a credential.
    PublishableKey,
    /// Anything else: an access token, if anything.
    Other,
}

pub fn presented(credential: &str) -> Presented<'_> {
    for env in Environment::ALL {
        if let Some(rest) = credential.strip_prefix(env.secret_prefix()) {
            return Presented::SecretKey(env, rest);
        }
        if credential.starts_with(env.client_id_prefix()) {
            return Presented::PublishableKey;
        }
    }
    Presented::Other
}

/// An API key's public id from its selector.
pub fn api_key_id(selector: &[u8]) -> String {
    format!("key_{}", URL_SAFE_NO_PAD.encode(selector))
}

/// The selector an API key id names, if it is one.
pub fn api_key_selector(id: &str) -> Option<[u8; 16]> {
    let raw = URL_SAFE_NO_PAD.decode(id.strip_prefix("key_")?).ok()?;
    raw.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_key_names_its_environment_and_parses_back_to_its_row() {
        let key = api_key(Environment::Test, 1_700_000_000_000, [7; 42]);
        assert!(key.key.expose().starts_with("sk_test_"));
        let Presented::SecretKey(env, rest) = presented(key.key.expose()) else {
            panic!("a secret key")
        };
        assert_eq!(env, Environment::Test);
        let (selector, verifier) = parse_access_token(rest).expect("token shape");
        assert_eq!(selector, key.selector);
        assert!(verifier_matches(&verifier, &key.verifier_hash));
        let id = api_key_id(&key.selector);
        assert!(id.starts_with("key_"));
        assert_eq!(api_key_selector(&id), Some(key.selector));
        assert_eq!(api_key_selector("key_short"), None);
        assert_eq!(presented("pk_live_abc"), Presented::PublishableKey);
        assert_eq!(presented("eyJhbGciOi"), Presented::Other);
        assert!(matches!(
            presented("sk_live_x"),
            Presented::SecretKey(Environment::Live, "x")
        ));
    }

    #[test]
    fn generated_clients_carry_environment_prefixes_and_enough_entropy() {
        let c = client_credentials(Environment::Test, [1; 18], [2; 32]);
        assert!(c.client_id.starts_with("pk_test_"));
        assert!(c.client_secret.expose().starts_with("sk_test_"));
        // 32 bytes of base64url = 43 characters = 256 bits.
        assert_eq!(c.client_secret.expose().len(), "sk_test_".len() + 43);
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
    fn tokens_parse_back_to_their_selector_and_verifier() {
        let a = access_token(1_790_000_000_000, [1; 42]);
        let b = access_token(1_790_000_000_000, [2; 42]);
        assert_ne!(a.token, b.token);
        assert_ne!(a.selector, b.selector, "80 random bits in the selector");
        assert_eq!(a.token.len(), 64);
        let (selector, hash) = parse_access_token(&a.token).unwrap();
        assert_eq!(selector, a.selector);
        assert!(verifier_matches(&hash, &a.verifier_hash));
        assert!(!verifier_matches(&hash, &b.verifier_hash));
        assert!(parse_access_token("short").is_none());
        assert!(parse_access_token(&a.token[..63]).is_none());
        // Later tokens sort after earlier ones.
        assert!(access_token(1_790_000_000_001, [0; 42]).selector > a.selector);
    }
}
