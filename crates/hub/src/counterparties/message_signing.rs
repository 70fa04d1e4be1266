//! lendhub's message signatures to the banks (`x-jws-signature`, PS256,
//! detached, `lendhub_domain::open_banking::jws`), and the check of the
//! banks' signatures on their payment answers against the keys their
//! discovery documents publish (`jwks_uri`).

use std::collections::HashMap;

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey};
use lendhub_domain::open_banking::jws::{self, Protected};
use serde::Deserialize;

use super::BankUnavailable;

/// The key lendhub signs its payment requests with: the one registered for
/// its software statement in the banks' directory.
#[derive(Clone)]
pub struct MessageSigner {
    key: EncodingKey,
    kid: String,
    /// `http://openbanking.org.uk/iss`: the organisation and software
    /// statement the key is registered under.
    iss: String,
}

impl std::fmt::Debug for MessageSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageSigner")
            .field("kid", &self.kid)
            .field("iss", &self.iss)
            .finish_non_exhaustive()
    }
}

impl MessageSigner {
    /// An RSA private key in PEM (PKCS#1 or PKCS#8).
    pub fn from_pem(
        pem: &str,
        kid: impl Into<String>,
        iss: impl Into<String>,
    ) -> Result<Self, jsonwebtoken::errors::Error> {
        Ok(Self {
            key: EncodingKey::from_rsa_pem(pem.as_bytes())?,
            kid: kid.into(),
            iss: iss.into(),
        })
    }

    /// The detached signature of `body`, signed at `iat` (Unix seconds).
    pub fn sign(&self, body: &[u8], iat: i64) -> Result<String, BankUnavailable> {
        let header = Protected::ps256(&self.kid, &self.iss, iat).encoded();
        let signature = jsonwebtoken::crypto::sign(
            &jws::signing_input(&header, body),
            &self.key,
            Algorithm::PS256,
        )
        .map_err(|e| BankUnavailable(format!("the request would not sign: {e}")))?;
        Ok(jws::detached(&header, &signature))
    }
}

#[derive(Deserialize)]
struct Jwks {
    keys: Vec<Jwk>,
}

#[derive(Deserialize)]
struct Jwk {
    kty: String,
    #[serde(default)]
    kid: Option<String>,
    #[serde(default)]
    n: Option<String>,
    #[serde(default)]
    e: Option<String>,
}

/// A bank's signing keys, by kid, as its JWKS lists them (RSA only).
pub(super) struct BankKeys(HashMap<String, DecodingKey>);

impl BankKeys {
    pub fn parse(jwks: &[u8]) -> Result<Self, BankUnavailable> {
        let jwks: Jwks = serde_json::from_slice(jwks)
            .map_err(|e| BankUnavailable(format!("its JWKS is not one: {e}")))?;
        let keys = jwks
            .keys
            .into_iter()
            .filter(|k| k.kty == "RSA")
            .filter_map(|k| {
                let key =
                    DecodingKey::from_rsa_components(k.n.as_deref()?, k.e.as_deref()?).ok()?;
                Some((k.kid?, key))
            })
            .collect();
        Ok(Self(keys))
    }

    /// The key named `kid`, if the bank publishes one.
    pub fn key(&self, kid: &str) -> Option<&DecodingKey> {
        self.0.get(kid)
    }

    /// Whether `signature` is the bank's over `body`.
    pub fn verify(&self, signature: &str, body: &[u8]) -> bool {
        let Ok((protected, input, sig)) = jws::parse(signature, body) else {
            return false;
        };
        if protected.alg != "PS256" {
            return false;
        }
        self.0.get(&protected.kid).is_some_and(|key| {
            jsonwebtoken::crypto::verify(sig, &input, key, Algorithm::PS256).unwrap_or(false)
        })
    }
}
