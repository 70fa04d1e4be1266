//! Partner access tokens: EdDSA-signed JWTs (RFC 9068 profile) and their
//! verification, which every bearer check, introspection and revocation share.
//! Expiry is checked against the injectable clock, not the library's.

use std::sync::Arc;

use jsonwebtoken::{Algorithm, DecodingKey, Header};
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::partner::project::{ACCESS_TOKEN_TYPE, AccessClaims, PartnerStatus};
use lendhub_domain::partner::scope::PartnerScopes;
use lendhub_wire::access_token;

use super::error::PartnerError;
use crate::partner::state::PartnerState;

/// Tolerance for clocks that disagree about when a token starts to be valid.
const NBF_LEEWAY_S: i64 = 30;

pub async fn issue(
    state: &PartnerState,
    client_id: &str,
    scope: String,
    env: Environment,
) -> Result<(String, AccessClaims), PartnerError> {
    let now_s = state.clock.now_ms().div_euclid(1000);
    let jti = lendhub_system::random_token(16);
    let claims = AccessClaims::new(
        state.links.urls.issuer(),
        state.links.urls.environment(env),
        client_id,
        scope,
        now_s,
        jti,
    );
    let mut header = Header::new(Algorithm::EdDSA);
    header.typ = Some(ACCESS_TOKEN_TYPE.to_owned());
    let token = state
        .keys
        .sign(state.key_store.as_ref(), header, &claims)
        .await?;
    Ok((token, claims))
}

/// A verified token's claims, shared with the verification cache.
#[derive(Clone)]
pub struct Claims(Arc<(String, AccessClaims)>);

impl std::ops::Deref for Claims {
    type Target = AccessClaims;

    fn deref(&self) -> &AccessClaims {
        &self.0.1
    }
}

/// A token whose signature, issuer, audience and lifetime all hold, and
/// whose partner is still active.
pub struct Verified {
    pub claims: Claims,
    pub scopes: PartnerScopes,
    pub client: Arc<lendhub_store::PartnerClientRecord>,
}

fn forged() -> PartnerError {
    PartnerError::Unauthenticated("the access token is malformed or not signed by this service")
}

/// The key an access token names, if its header is one of ours.
pub fn access_token_key_id(token: &str) -> Result<String, PartnerError> {
    access_token::key_id(token).map_err(refused)
}

/// The token's claims, if `key` signed it. Time, issuer and audience are
/// checked by the caller, against its clock and with their own codes.
pub fn signed_claims(token: &str, key: &DecodingKey) -> Result<AccessClaims, PartnerError> {
    access_token::signed_claims(token, key).map_err(refused)
}

fn refused(why: access_token::Refused) -> PartnerError {
    match why {
        access_token::Refused::Forged => forged(),
        access_token::Refused::NoKeyId => {
            PartnerError::Unauthenticated("the access token names no key")
        }
    }
}

/// Checks signature, issuer and audience only: enough to know the token is
/// ours and whose it is (revocation needs no more).
pub async fn authentic(state: &PartnerState, token: &str) -> Result<Claims, PartnerError> {
    state
        .keys
        .refresh_if_stale(state.key_store.as_ref())
        .await?;
    if let Some(entry) = state.verifications.get(token)
        && state.keys.knows(&entry.0)
    {
        return Ok(Claims(entry));
    }
    let kid = access_token_key_id(token)?;
    let kid_for_cache = kid.clone();
    let Some(key) = state.keys.verifier(state.key_store.as_ref(), &kid).await? else {
        return Err(PartnerError::Unauthenticated(
            "the access token is signed by an unknown key",
        ));
    };
    let claims = signed_claims(token, &key)?;
    if claims.iss != state.links.urls.issuer() {
        return Err(PartnerError::Unauthenticated(
            "the access token was issued by another issuer",
        ));
    }
    if ![Environment::Live, Environment::Test]
        .iter()
        .any(|env| claims.aud == state.links.urls.environment(*env))
    {
        return Err(PartnerError::AudienceMismatch);
    }
    let entry = Arc::new((kid_for_cache, claims));
    state.verifications.put(token, entry.clone());
    Ok(Claims(entry))
}

/// The token's lifetime holds now, by the service clock.
pub fn within_lifetime(state: &PartnerState, claims: &AccessClaims) -> Result<(), PartnerError> {
    let now_s = state.clock.now_ms().div_euclid(1000);
    if now_s >= claims.exp {
        return Err(PartnerError::TokenExpired);
    }
    if now_s + NBF_LEEWAY_S < claims.nbf {
        return Err(PartnerError::Unauthenticated(
            "the access token is not valid yet",
        ));
    }
    Ok(())
}

/// A token for the live partner ring (the MCP tier).
pub async fn verify(state: &PartnerState, token: &str) -> Result<Verified, PartnerError> {
    verify_for(state, token, Environment::Live).await
}

/// A token for `env`: its audience must be that environment's.
pub async fn verify_for(
    state: &PartnerState,
    token: &str,
    env: Environment,
) -> Result<Verified, PartnerError> {
    let claims = authentic(state, token).await?;
    if claims.aud != state.links.urls.environment(env) {
        return Err(PartnerError::AudienceMismatch);
    }
    within_lifetime(state, &claims)?;
    let (stored, revoked) = state
        .directory
        .client_and_revocation(state.partners.as_ref(), &claims.client_id, &claims.jti)
        .await?;
    if revoked {
        return Err(PartnerError::TokenRevoked);
    }
    let client = match stored {
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
