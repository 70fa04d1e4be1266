//! ID tokens (OpenID Connect Core §2): JWTs signed ES256 with the current
//! `sso` key. They carry who signed in and when, never profile claims: with
//! the code flow those come from `/userinfo`, by scope.

use jsonwebtoken::{Algorithm, Header, Validation, decode, decode_header};
use lendhub_domain::identity::claims::ID_TOKEN_TTL_S;
use lendhub_domain::identity::pkce::at_hash;
use serde::{Deserialize, Serialize};

use crate::state::IdpState;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct IdClaims {
    pub iss: String,
    /// `usr_…`, never the email.
    pub sub: String,
    /// The client id.
    pub aud: String,
    pub exp: i64,
    pub iat: i64,
    /// When the person signed in (seconds), not when this token was issued.
    pub auth_time: i64,
    /// The `nonce` of the authorization request, when it had one. Tokens
    /// issued on refresh carry none (OpenID Connect Core §12.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_hash: Option<String>,
}

pub struct Subject<'a> {
    pub user_id: &'a str,
    pub client_id: &'a str,
    pub auth_time_ms: i64,
    pub nonce: Option<&'a str>,
}

/// Signs an ID token for `subject`, bound to `access_token` by `at_hash`.
pub async fn issue(
    state: &IdpState,
    subject: Subject<'_>,
    access_token: &str,
) -> Result<String, lendhub_store::StoreError> {
    let now_s = state.clock.now_ms().div_euclid(1000);
    let claims = IdClaims {
        iss: state.urls.issuer.clone(),
        sub: subject.user_id.to_owned(),
        aud: subject.client_id.to_owned(),
        exp: now_s + ID_TOKEN_TTL_S,
        iat: now_s,
        auth_time: subject.auth_time_ms.div_euclid(1000),
        nonce: subject.nonce.map(str::to_owned),
        at_hash: Some(at_hash(access_token)),
    };
    state
        .keys
        .sign(
            state.key_store.as_ref(),
            Header::new(Algorithm::ES256),
            &claims,
        )
        .await
}

/// An ID token we issued (signature by a key in the ring, our issuer),
/// whether or not it has expired: what `id_token_hint` needs (RP-Initiated
/// Logout §2 says an expired one is still a good hint).
pub async fn verify_hint(
    state: &IdpState,
    token: &str,
) -> Result<Option<IdClaims>, lendhub_store::StoreError> {
    let Ok(header) = decode_header(token) else {
        return Ok(None);
    };
    if header.alg != Algorithm::ES256 {
        return Ok(None);
    }
    let Some(kid) = header.kid else {
        return Ok(None);
    };
    let Some(key) = state.keys.verifier(state.key_store.as_ref(), &kid).await? else {
        return Ok(None);
    };
    let mut validation = Validation::new(Algorithm::ES256);
    validation.validate_exp = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let Ok(data) = decode::<IdClaims>(token, &key, &validation) else {
        return Ok(None);
    };
    Ok((data.claims.iss == state.urls.issuer).then_some(data.claims))
}
