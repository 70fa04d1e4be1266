//! Partner access tokens: EdDSA-signed JWTs (RFC 9068 profile) and their
//! verification, which every bearer check, introspection and revocation share.
//! Expiry is checked against the injectable clock, not the library's.

use jsonwebtoken::{Algorithm, Header, Validation, decode, decode_header, encode};
use lendhub_domain::partner::{ACCESS_TOKEN_TYPE, AccessClaims, PartnerStatus};
use lendhub_domain::scope::PartnerScopes;

use super::error::PartnerError;
use crate::state::HubState;

/// Tolerance for clocks that disagree about when a token starts to be valid.
const NBF_LEEWAY_S: i64 = 30;

pub async fn issue(
    state: &HubState,
    client_id: &str,
    scope: String,
) -> Result<(String, AccessClaims), PartnerError> {
    let now_s = state.clock.now_ms().div_euclid(1000);
    let jti = lendhub_domain::credentials::random_token(16);
    let claims = AccessClaims::new(
        state.urls.issuer(),
        &state.urls.partner(),
        client_id,
        scope,
        now_s,
        jti,
    );
    let (kid, key) = state.keys.signer(state.store.as_ref()).await?;
    let mut header = Header::new(Algorithm::EdDSA);
    header.typ = Some(ACCESS_TOKEN_TYPE.to_owned());
    header.kid = Some(kid);
    let token = encode(&header, &claims, &key)
        .map_err(|e| PartnerError::Internal(format!("signing a token: {e}")))?;
    Ok((token, claims))
}

/// A token whose signature, issuer, audience and lifetime all hold, and
/// whose partner is still active.
pub struct Verified {
    pub claims: AccessClaims,
    pub scopes: PartnerScopes,
    pub client: lendhub_store::PartnerClientRecord,
}

/// Checks signature, issuer and audience only: enough to know the token is
/// ours and whose it is (revocation needs no more).
pub async fn authentic(state: &HubState, token: &str) -> Result<AccessClaims, PartnerError> {
    let forged = PartnerError::Unauthenticated(
        "the access token is malformed or not signed by this service",
    );
    let header = decode_header(token).map_err(|_| {
        PartnerError::Unauthenticated("the access token is malformed or not signed by this service")
    })?;
    if header.alg != Algorithm::EdDSA || header.typ.as_deref() != Some(ACCESS_TOKEN_TYPE) {
        return Err(forged);
    }
    let kid = header.kid.ok_or(PartnerError::Unauthenticated(
        "the access token names no key",
    ))?;
    let Some(key) = state.keys.verifier(state.store.as_ref(), &kid).await? else {
        return Err(PartnerError::Unauthenticated(
            "the access token is signed by an unknown key",
        ));
    };
    let mut validation = Validation::new(Algorithm::EdDSA);
    // Time, issuer and audience are checked below, against our clock and
    // with their own error codes.
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let claims = decode::<AccessClaims>(token, &key, &validation)
        .map_err(|_| forged)?
        .claims;
    if claims.iss != state.urls.issuer() {
        return Err(PartnerError::Unauthenticated(
            "the access token was issued by another issuer",
        ));
    }
    if claims.aud != state.urls.partner() {
        return Err(PartnerError::AudienceMismatch);
    }
    Ok(claims)
}

pub async fn verify(state: &HubState, token: &str) -> Result<Verified, PartnerError> {
    let claims = authentic(state, token).await?;
    let now_s = state.clock.now_ms().div_euclid(1000);
    if now_s >= claims.exp {
        return Err(PartnerError::TokenExpired);
    }
    if now_s + NBF_LEEWAY_S < claims.nbf {
        return Err(PartnerError::Unauthenticated(
            "the access token is not valid yet",
        ));
    }
    if state.store.jwt_revoked(&claims.jti).await? {
        return Err(PartnerError::TokenRevoked);
    }
    let client = match state.store.partner_client(&claims.client_id).await? {
        None => {
            return Err(PartnerError::Unauthenticated(
                "the access token's client no longer exists",
            ));
        }
        Some(c) if c.status == PartnerStatus::Suspended => {
            return Err(PartnerError::AccountSuspended);
        }
        Some(c) => c,
    };
    let scopes = PartnerScopes::parse(&claims.scope).unwrap_or_default();
    Ok(Verified {
        claims,
        scopes,
        client,
    })
}
