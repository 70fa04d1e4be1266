//! The sandbox's access tokens: sealed, not stored. A token carries its
//! client, its scopes and its expiry, encrypted and authenticated with
//! XChaCha20-Poly1305 under a key derived from the master key, so issuing
//! one writes nothing and a bearer check reads only the client (which every
//! instance remembers between epoch moves). To the client the token stays
//! opaque: base64url of bytes it cannot read or alter.
//!
//! Layout: `version (1) ‖ nonce (24) ‖ ciphertext ‖ tag (16)`, the version
//! also bound as associated data; the plaintext is `expires_at_ms (8, big
//! endian) ‖ scope bits (1) ‖ client id (UTF-8)`. The nonce is random (192
//! bits, so never repeated by chance), drawn by the caller.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

use crate::crypto::MasterKey;
use crate::partner::scope::{SandboxScope, SandboxScopes, Scope};

const VERSION: u8 = 1;
const NONCE: usize = 24;
const TAG: usize = 16;
const FIXED: usize = 8 + 1;
/// Client ids are `pk_test_` and 24 characters; anything far longer is not ours.
const MAX_CLIENT_ID: usize = 128;

/// What a sandbox token grants, and until when (on the service clock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenClaims {
    pub client_id: String,
    pub scopes: SandboxScopes,
    pub expires_at_ms: i64,
}

/// The key tokens are sealed with, built once per process.
pub struct TokenSeal(XChaCha20Poly1305);

impl TokenSeal {
    pub fn new(master_key: &MasterKey) -> Self {
        Self(XChaCha20Poly1305::new(
            &(*master_key.derive("sandbox-access-token").expose()).into(),
        ))
    }

    /// The token text for `claims`; `nonce` must be random.
    pub fn seal(&self, claims: &TokenClaims, nonce: [u8; NONCE]) -> String {
        let mut plain = Vec::with_capacity(FIXED + claims.client_id.len());
        plain.extend_from_slice(&claims.expires_at_ms.to_be_bytes());
        plain.push(scope_bits(&claims.scopes));
        plain.extend_from_slice(claims.client_id.as_bytes());
        // Encryption fails only for plaintexts over 256 GiB.
        let sealed = self
            .0
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: &plain,
                    aad: &[VERSION],
                },
            )
            .unwrap_or_else(|_| unreachable!("a token's plaintext is tens of bytes"));
        let mut bytes = Vec::with_capacity(1 + NONCE + sealed.len());
        bytes.push(VERSION);
        bytes.extend_from_slice(&nonce);
        bytes.extend_from_slice(&sealed);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The claims of a token this key sealed; `None` for anything else
    /// (malformed, altered, another key's, another version's).
    pub fn open(&self, token: &str) -> Option<TokenClaims> {
        if token.len() > (1 + NONCE + FIXED + MAX_CLIENT_ID + TAG) * 4 / 3 + 1 {
            return None;
        }
        let bytes = URL_SAFE_NO_PAD.decode(token).ok()?;
        let (&version, rest) = bytes.split_first()?;
        if version != VERSION || rest.len() < NONCE + FIXED + TAG {
            return None;
        }
        let (nonce, sealed) = rest.split_at(NONCE);
        let plain = self
            .0
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: &[VERSION],
                },
            )
            .ok()?;
        let (expires, rest) = plain.split_first_chunk::<8>()?;
        let (&bits, client_id) = rest.split_first()?;
        Some(TokenClaims {
            client_id: String::from_utf8(client_id.to_vec()).ok()?,
            scopes: scopes_of(bits)?,
            expires_at_ms: i64::from_be_bytes(*expires),
        })
    }
}

/// One bit per scope, by its place in [`SandboxScope::ALL`].
fn scope_bits(scopes: &SandboxScopes) -> u8 {
    SandboxScope::ALL
        .iter()
        .enumerate()
        .filter(|(_, s)| scopes.contains(**s))
        .fold(0, |bits, (i, _)| bits | 1 << i)
}

fn scopes_of(bits: u8) -> Option<SandboxScopes> {
    if u32::from(bits) >> SandboxScope::ALL.len() != 0 {
        return None;
    }
    Some(
        SandboxScope::ALL
            .iter()
            .enumerate()
            .filter(|(i, _)| bits & 1 << i != 0)
            .map(|(_, s)| *s)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seal() -> TokenSeal {
        TokenSeal::new(&MasterKey::from_bytes([9; 32]))
    }

    fn claims(scopes: &str) -> TokenClaims {
        TokenClaims {
            client_id: "pk_test_AAAAAAAAAAAAAAAAAAAAAAAA".into(),
            scopes: SandboxScopes::parse(scopes).unwrap(),
            expires_at_ms: 1_790_000_000_123,
        }
    }

    #[test]
    fn a_sealed_token_opens_to_its_claims() {
        for scopes in [
            "",
            "sandbox:read",
            "sandbox:write",
            "sandbox:read sandbox:write",
        ] {
            let c = claims(scopes);
            assert_eq!(seal().open(&seal().seal(&c, [1; 24])), Some(c));
        }
    }

    #[test]
    fn tokens_are_url_safe_and_differ_by_nonce() {
        let a = seal().seal(&claims("sandbox:read"), [1; 24]);
        let b = seal().seal(&claims("sandbox:read"), [2; 24]);
        assert_ne!(a, b);
        assert!(
            a.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
    }

    #[test]
    fn anything_altered_or_foreign_does_not_open() {
        let token = seal().seal(&claims("sandbox:read"), [1; 24]);
        let other = TokenSeal::new(&MasterKey::from_bytes([8; 32]));
        assert_eq!(other.open(&token), None, "another key");
        let mut bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        for i in 0..bytes.len() {
            bytes[i] ^= 1;
            assert_eq!(
                seal().open(&URL_SAFE_NO_PAD.encode(&bytes)),
                None,
                "byte {i}"
            );
            bytes[i] ^= 1;
        }
        for bad in [
            "",
            "a",
            "!!!!",
            &token[..token.len() - 2],
            &"A".repeat(4000),
        ] {
            assert_eq!(seal().open(bad), None, "{bad}");
        }
    }
}
