//! PS256 (RSASSA-PSS with SHA-256, salt as long as the hash) signatures,
//! as JOSE defines them, made by aws-lc-rs: the Open Banking message
//! signatures (`x-jws-signature`) on every payment request lendhub sends
//! and every answer the model bank signs. RustCrypto's `rsa`, which
//! `jsonwebtoken` signs with, spent 73 % of the server's CPU in the
//! scheduler benchmark (`docs/decisions.md`).

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{RSA_PSS_SHA256, RsaKeyPair};

/// An RSA private key, parsed once, that signs PS256.
pub struct Ps256Signer {
    key: RsaKeyPair,
}

impl std::fmt::Debug for Ps256Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ps256Signer").finish_non_exhaustive()
    }
}

impl Ps256Signer {
    /// An RSA private key in PEM: PKCS#8 (`PRIVATE KEY`) or PKCS#1
    /// (`RSA PRIVATE KEY`).
    pub fn from_pem(pem: &str) -> Result<Self, String> {
        let block = pem::parse(pem).map_err(|e| format!("not PEM: {e}"))?;
        let key = match block.tag() {
            "PRIVATE KEY" => RsaKeyPair::from_pkcs8(block.contents()),
            "RSA PRIVATE KEY" => RsaKeyPair::from_der(block.contents()),
            other => return Err(format!("a {other}, not an RSA private key")),
        }
        .map_err(|e| format!("not an RSA private key: {e}"))?;
        Ok(Self { key })
    }

    /// The signature of `input` (for a JWS, the signing input).
    pub fn sign(&self, input: &[u8]) -> Result<Vec<u8>, String> {
        let mut signature = vec![0; self.key.public_modulus_len()];
        self.key
            .sign(&RSA_PSS_SHA256, &SystemRandom::new(), input, &mut signature)
            .map_err(|_| "the RSA signature failed".to_owned())?;
        Ok(signature)
    }
}
