//! A partner access token (an EdDSA-signed JWT, RFC 9068 profile) as it
//! arrives: its header, then its signature and claims against a key. Time,
//! issuer and audience are the partner ring's to check, against its clock
//! and with its own codes; this reads bytes and nothing else.

use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use lendhub_domain::partner::project::{ACCESS_TOKEN_TYPE, AccessClaims};

/// Why a token is refused before anything about it is believed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Not a JWT of ours, or not signed by the key it names.
    Forged,
    /// A header of ours that names no key.
    NoKeyId,
}

/// The key an access token names, if its header is one of ours (EdDSA,
/// `typ` of an access token). Reads no key and no clock.
pub fn key_id(token: &str) -> Result<String, Refused> {
    let header = decode_header(token).map_err(|_| Refused::Forged)?;
    if header.alg != Algorithm::EdDSA || header.typ.as_deref() != Some(ACCESS_TOKEN_TYPE) {
        return Err(Refused::Forged);
    }
    header.kid.ok_or(Refused::NoKeyId)
}

/// The token's claims, if `key` signed it.
pub fn signed_claims(token: &str, key: &DecodingKey) -> Result<AccessClaims, Refused> {
    let mut validation = Validation::new(Algorithm::EdDSA);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    decode::<AccessClaims>(token, key, &validation)
        .map(|data| data.claims)
        .map_err(|_| Refused::Forged)
}
