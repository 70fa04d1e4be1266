//! lendhub's message signatures to the banks (`x-jws-signature`, PS256,
//! detached, `lendhub_domain::open_banking::jws`), and the check of the
//! banks' signatures on their payment answers against the keys their
//! discovery documents publish (`jwks_uri`).

use std::collections::HashMap;

use aws_lc_rs::signature::{
    RSA_PSS_2048_8192_SHA256, RsaPublicKeyComponents as PublicKeyComponents,
};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::DecodingKey;
use lendhub_domain::open_banking::jws::{self, Protected};
use serde::Deserialize;

use super::BankUnavailable;

/// The key lendhub signs its payment requests with: the one registered for
/// its software statement in the banks' directory.
#[derive(Clone)]
pub struct MessageSigner {
    key: std::sync::Arc<lendhub_system::RsaSigner>,
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
    ) -> Result<Self, String> {
        Ok(Self {
            key: std::sync::Arc::new(lendhub_system::RsaSigner::from_pem(pem)?),
            kid: kid.into(),
            iss: iss.into(),
        })
    }

    /// The detached signature of `body`, signed at `iat` (Unix seconds).
    pub fn sign(&self, body: &[u8], iat: i64) -> Result<String, BankUnavailable> {
        let header = Protected::ps256(&self.kid, &self.iss, iat).encoded();
        let signature = self
            .key
            .sign_ps256(&jws::signing_input(&header, body))
            .map_err(|e| BankUnavailable(format!("the request would not sign: {e}")))?;
        Ok(jws::detached(&header, &URL_SAFE_NO_PAD.encode(signature)))
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

/// One of a bank's signing keys: for `jsonwebtoken` (its notifications'
/// tokens) and as the RSA components aws-lc-rs verifies its message
/// signatures with (most of a collection's verifying; RustCrypto's modular
/// arithmetic is several times slower).
struct BankKey {
    decoding: DecodingKey,
    components: PublicKeyComponents<Vec<u8>>,
}

/// A bank's signing keys, by kid, as its JWKS lists them (RSA only).
pub(super) struct BankKeys(HashMap<String, BankKey>);

impl BankKeys {
    pub fn parse(jwks: &[u8]) -> Result<Self, BankUnavailable> {
        let jwks: Jwks = serde_json::from_slice(jwks)
            .map_err(|e| BankUnavailable(format!("its JWKS is not one: {e}")))?;
        let keys = jwks
            .keys
            .into_iter()
            .filter(|k| k.kty == "RSA")
            .filter_map(|k| {
                let (n, e) = (k.n.as_deref()?, k.e.as_deref()?);
                let key = BankKey {
                    decoding: DecodingKey::from_rsa_components(n, e).ok()?,
                    components: PublicKeyComponents {
                        n: URL_SAFE_NO_PAD.decode(n).ok()?,
                        e: URL_SAFE_NO_PAD.decode(e).ok()?,
                    },
                };
                Some((k.kid?, key))
            })
            .collect();
        Ok(Self(keys))
    }

    /// The key named `kid`, if the bank publishes one.
    pub fn key(&self, kid: &str) -> Option<&DecodingKey> {
        self.0.get(kid).map(|k| &k.decoding)
    }

    /// Whether `signature` is the bank's over `body`.
    pub fn verify(&self, signature: &str, body: &[u8]) -> bool {
        let Ok((protected, input, sig)) = jws::parse(signature, body) else {
            return false;
        };
        if protected.alg != "PS256" {
            return false;
        }
        let Ok(sig) = URL_SAFE_NO_PAD.decode(sig) else {
            return false;
        };
        self.0.get(&protected.kid).is_some_and(|key| {
            key.components
                .verify(&RSA_PSS_2048_8192_SHA256, &input, &sig)
                .is_ok()
        })
    }
}
