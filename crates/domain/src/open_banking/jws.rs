//! The standard's message signature (`x-jws-signature`): a JWS with a
//! detached payload over the HTTP body exactly as sent, PS256, with the
//! Open Banking claims in its protected header, which are marked critical
//! (v3.1.4 on: no `b64` member, the payload is base64url as usual). The
//! cryptography is the caller's; this is the shape both sides agree on.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

pub const IAT: &str = "http://openbanking.org.uk/iat";
pub const ISS: &str = "http://openbanking.org.uk/iss";
pub const TAN: &str = "http://openbanking.org.uk/tan";
/// The trust anchor lendhub and the model bank name.
pub const TRUST_ANCHOR: &str = "openbanking.org.uk";

/// The protected header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protected {
    pub alg: String,
    pub kid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typ: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cty: Option<String>,
    #[serde(rename = "http://openbanking.org.uk/iat")]
    pub iat: i64,
    #[serde(rename = "http://openbanking.org.uk/iss")]
    pub iss: String,
    #[serde(rename = "http://openbanking.org.uk/tan")]
    pub tan: String,
    pub crit: Vec<String>,
}

impl Protected {
    /// A PS256 header for `kid`, signed by `iss` at `iat` (Unix seconds).
    pub fn ps256(kid: &str, iss: &str, iat: i64) -> Self {
        Self {
            alg: "PS256".to_owned(),
            kid: kid.to_owned(),
            typ: Some("JOSE".to_owned()),
            cty: Some("application/json".to_owned()),
            iat,
            iss: iss.to_owned(),
            tan: TRUST_ANCHOR.to_owned(),
            crit: vec![IAT.to_owned(), ISS.to_owned(), TAN.to_owned()],
        }
    }

    /// The header as the JWS carries it (base64url of its JSON).
    pub fn encoded(&self) -> String {
        // A struct of strings and numbers always serialises.
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).unwrap_or_default())
    }
}

/// What the signature is computed over: `header.payload`, the payload
/// being the body base64url-encoded.
pub fn signing_input(encoded_header: &str, body: &[u8]) -> Vec<u8> {
    format!("{encoded_header}.{}", URL_SAFE_NO_PAD.encode(body)).into_bytes()
}

/// The detached form sent in the header: `header..signature`.
pub fn detached(encoded_header: &str, signature: &str) -> String {
    format!("{encoded_header}..{signature}")
}

/// Why a signature is refused before its cryptography is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Malformed {
    #[error("not a detached JWS (header..signature)")]
    Shape,
    #[error("the protected header is not the standard's")]
    Header,
    #[error("the header does not mark the Open Banking claims critical")]
    Critical,
}

/// A detached signature's protected header, read and checked for the
/// standard's claims, with what to verify the signature over `body`:
/// (header, signing input, signature).
pub fn parse<'a>(
    signature: &'a str,
    body: &[u8],
) -> Result<(Protected, Vec<u8>, &'a str), Malformed> {
    let mut parts = signature.split('.');
    let (Some(header), Some(""), Some(sig), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Malformed::Shape);
    };
    let decoded = URL_SAFE_NO_PAD
        .decode(header)
        .map_err(|_| Malformed::Header)?;
    let protected: Protected = serde_json::from_slice(&decoded).map_err(|_| Malformed::Header)?;
    let critical = [IAT, ISS, TAN]
        .iter()
        .all(|c| protected.crit.iter().any(|m| m == c));
    if !critical || protected.tan != TRUST_ANCHOR {
        return Err(Malformed::Critical);
    }
    Ok((protected, signing_input(header, body), sig))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_detached_signature_reads_back_with_its_signing_input() {
        let header = Protected::ps256("kid-1", "org/ssa", 1_700_000_000);
        let encoded = header.encoded();
        let body = br#"{"Data":{}}"#;
        let sent = detached(&encoded, "c2ln");
        let (read, input, sig) = parse(&sent, body).unwrap();
        assert_eq!(read, header);
        assert_eq!(sig, "c2ln");
        assert_eq!(input, signing_input(&encoded, body));
        assert!(input.starts_with(format!("{encoded}.").as_bytes()));
    }

    #[test]
    fn an_attached_or_uncritical_signature_is_refused() {
        let encoded = Protected::ps256("k", "i", 1).encoded();
        assert_eq!(
            parse(&format!("{encoded}.e30.c2ln"), b"{}"),
            Err(Malformed::Shape)
        );
        assert_eq!(parse("x..y", b"{}"), Err(Malformed::Header));
        let mut loose = Protected::ps256("k", "i", 1);
        loose.crit.pop();
        assert_eq!(
            parse(&detached(&loose.encoded(), "c2ln"), b"{}"),
            Err(Malformed::Critical)
        );
    }
}
