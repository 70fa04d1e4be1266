//! RSA signatures made by aws-lc-rs with a key parsed once: PS256
//! (RSASSA-PSS with SHA-256, salt as long as the hash, as JOSE defines it)
//! for the Open Banking message signatures (`x-jws-signature`) on every
//! payment request lendhub sends and every answer the model bank signs;
//! RSASSA-PKCS1-v1_5 with SHA-256 for the payout rail's `DigitalSignature`
//! (ClearBank's API and webhooks). RustCrypto's `rsa`, which
//! `jsonwebtoken` signs with, spent 73 % of the server's CPU in the
//! scheduler benchmark (`docs/decisions.md`).

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{RSA_PKCS1_SHA256, RSA_PSS_SHA256, RsaEncoding, RsaKeyPair};

/// An RSA private key, parsed once, that signs.
pub struct RsaSigner {
    key: RsaKeyPair,
}

impl std::fmt::Debug for RsaSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RsaSigner").finish_non_exhaustive()
    }
}

impl RsaSigner {
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

    /// The PS256 signature of `input` (for a JWS, the signing input).
    pub fn sign_ps256(&self, input: &[u8]) -> Result<Vec<u8>, String> {
        self.sign(&RSA_PSS_SHA256, input)
    }

    /// The RSASSA-PKCS1-v1_5 SHA-256 signature of `input` (JOSE's RS256).
    pub fn sign_rs256(&self, input: &[u8]) -> Result<Vec<u8>, String> {
        self.sign(&RSA_PKCS1_SHA256, input)
    }

    fn sign(&self, padding: &'static dyn RsaEncoding, input: &[u8]) -> Result<Vec<u8>, String> {
        let mut signature = vec![0; self.key.public_modulus_len()];
        self.key
            .sign(padding, &SystemRandom::new(), input, &mut signature)
            .map_err(|_| "the RSA signature failed".to_owned())?;
        Ok(signature)
    }
}

/// An RSA public key, parsed once, that checks RSASSA-PKCS1-v1_5 SHA-256
/// signatures (RS256): the payout rail's `DigitalSignature` on its webhooks,
/// and on the client's requests at the model rail.
pub struct Rs256Verifier {
    key: aws_lc_rs::signature::UnparsedPublicKey<Vec<u8>>,
}

impl std::fmt::Debug for Rs256Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rs256Verifier").finish_non_exhaustive()
    }
}

impl Rs256Verifier {
    /// An RSA public key in PEM: SubjectPublicKeyInfo (`PUBLIC KEY`) or
    /// PKCS#1 (`RSA PUBLIC KEY`).
    pub fn from_pem(pem: &str) -> Result<Self, String> {
        let block = pem::parse(pem).map_err(|e| format!("not PEM: {e}"))?;
        match block.tag() {
            "PUBLIC KEY" | "RSA PUBLIC KEY" => {}
            other => return Err(format!("a {other}, not an RSA public key")),
        }
        let der = block.into_contents();
        // Parsed now, so a bad key fails here rather than at each check.
        aws_lc_rs::signature::ParsedPublicKey::new(
            &aws_lc_rs::signature::RSA_PKCS1_2048_8192_SHA256,
            &der,
        )
        .map_err(|e| format!("not an RSA public key: {e}"))?;
        Ok(Self {
            key: aws_lc_rs::signature::UnparsedPublicKey::new(
                &aws_lc_rs::signature::RSA_PKCS1_2048_8192_SHA256,
                der,
            ),
        })
    }

    /// Whether `signature` is the key's RS256 signature of `message`.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        self.key.verify(message, signature).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRIVATE: &str = include_str!("../../models/keys/lendhub-signing.pem");
    const PUBLIC: &str = include_str!("../../models/keys/lendhub-signing.pub.pem");

    #[test]
    fn an_rs256_signature_verifies_with_the_public_half_and_nothing_else() {
        let signer = RsaSigner::from_pem(PRIVATE).unwrap();
        let verifier = Rs256Verifier::from_pem(PUBLIC).unwrap();
        let signature = signer.sign_rs256(b"{\"a\":1}").unwrap();
        assert!(verifier.verify(b"{\"a\":1}", &signature));
        assert!(!verifier.verify(b"{\"a\":2}", &signature));
        let pss = signer.sign_ps256(b"{\"a\":1}").unwrap();
        assert!(!verifier.verify(b"{\"a\":1}", &pss));
    }
}
