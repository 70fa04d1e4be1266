//! `GET|POST /userinfo` (OpenID Connect Core §5.3): the claims the bearer
//! access token's scopes release, exactly as the seed lists them per scope.
//! One read (remembered until the identity epoch moves; see `grants`)
//! finds the token, its family (revoked or not) and the person.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::identity::claims::{IdentityScopes, Profile, claims};
use lendhub_http::json::Json;

use crate::error::BearerError;
use crate::state::IdpState;

fn bearer(headers: &HeaderMap) -> Result<&str, BearerError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or(BearerError::Missing)?
        .to_str()
        .map_err(|_| BearerError::InvalidToken("the Authorization header is not valid text"))?;
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(token.trim())
        }
        _ => Err(BearerError::Missing),
    }
}

pub async fn userinfo(
    State(state): State<IdpState>,
    headers: HeaderMap,
) -> Result<Response, BearerError> {
    let token = bearer(&headers)?;
    claims_for(&state, token).await
}

/// POST: the token in the `Authorization` header, or as `access_token` in a
/// form body (RFC 6750 §2.2), but not both (§2).
pub async fn userinfo_post(
    State(state): State<IdpState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, BearerError> {
    let form = lendhub_http::oauth_form::parse(&headers, &body, &["access_token"]).ok();
    let in_body = form.as_ref().and_then(|f| f.get("access_token"));
    match (headers.contains_key(header::AUTHORIZATION), in_body) {
        (true, Some(_)) => Err(BearerError::InvalidRequest(
            "send the access token in the Authorization header or the body, not both",
        )),
        (false, Some(token)) => claims_for(&state, token).await,
        _ => claims_for(&state, bearer(&headers)?).await,
    }
}

async fn claims_for(state: &IdpState, token: &str) -> Result<Response, BearerError> {
    use crate::grants::Refused;
    let grant = state
        .grants
        .verify(state.sign_ins.as_ref(), token, state.clock.now_ms())
        .await
        .map_err(|refused| match refused {
            Refused::Invalid => BearerError::InvalidToken("the access token is not valid"),
            Refused::Revoked => BearerError::InvalidToken("the access token has been revoked"),
            Refused::Expired => BearerError::InvalidToken("the access token has expired"),
            Refused::Store(e) => e.into(),
        })?;
    let user = &grant.user;
    let profile = Profile {
        sub: user.user_id.clone(),
        given_name: user.given_name.clone(),
        family_name: user.family_name.clone(),
        email: user.email.clone(),
        email_verified: user.email_verified,
        company_number: user.company_number.clone(),
        company_name: user.company_name.clone(),
        company_role: user.company_role.clone(),
        updated_at: user.updated_at_ms.div_euclid(1000),
    };
    let scopes = IdentityScopes::parse(&grant.scope).unwrap_or_default();
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(claims(&profile, &scopes)),
    )
        .into_response())
}
