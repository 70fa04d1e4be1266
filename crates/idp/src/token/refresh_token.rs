//! The `refresh_token` grant (RFC 6749 §6): every use spends the refresh
//! token and issues a new one (rotation); presenting a spent one revokes the
//! whole family, since either the client or a thief holds a stale copy.
//! A `scope` may narrow, never widen, what the family was granted.

use std::collections::HashMap;

use axum::response::Response;
use lendhub_domain::identity::claims::{IdentityScope, IdentityScopes};
use lendhub_domain::partner::credentials::parse_access_token;
use lendhub_store::{GrantRefusal, RefreshRotation, Rotated, SsoClientRecord};

use super::{mint, required, respond};
use crate::error::TokenError;
use crate::id_token::{self, Subject};
use crate::state::IdpState;

pub async fn grant(
    state: &IdpState,
    client: &SsoClientRecord,
    form: &HashMap<&'static str, String>,
) -> Result<Response, TokenError> {
    let token = required(form, "refresh_token")?;
    let scope = match form
        .get("scope")
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
    {
        None => None,
        Some(raw) => {
            let scopes = IdentityScopes::parse(raw)
                .map_err(|unknown| TokenError::InvalidScope(format!("unknown scope {unknown}")))?;
            if !scopes.contains(IdentityScope::OpenId) {
                return Err(TokenError::InvalidScope("scope must include openid".into()));
            }
            Some(scopes.render())
        }
    };
    let Some((selector, verifier_hash)) = parse_access_token(token) else {
        return Err(TokenError::InvalidGrant("the refresh token is not valid"));
    };
    let now = state.clock.now_ms();
    // When no scope is asked for, the access token gets the family's; the
    // store knows it. A narrower one is the one asked for.
    let minted = mint(now, scope.clone());
    let rotation = RefreshRotation {
        selector: selector.to_vec(),
        verifier_hash: verifier_hash.to_vec(),
        client_id: client.client_id.clone(),
        scope: scope.clone(),
        now_ms: now,
        tokens: minted.stored.clone(),
    };
    let family = match state.sign_ins.rotate_refresh(rotation).await? {
        Rotated::Issued(family) => family,
        Rotated::Refused(GrantRefusal::ScopeExceeded) => {
            return Err(TokenError::InvalidScope(
                "a refresh may not ask for scopes beyond those first granted".into(),
            ));
        }
        Rotated::Refused(refusal) => {
            // A reuse revoked the family: this instance forgets its grants now.
            state.grants.forget();
            return Err(TokenError::InvalidGrant(match refusal {
                GrantRefusal::Expired => "the refresh token has expired",
                GrantRefusal::Replayed => {
                    "the refresh token was already used; every token of its family is revoked"
                }
                GrantRefusal::Revoked => "the refresh token has been revoked",
                _ => "the refresh token is not valid",
            }));
        }
    };
    let id_token = id_token::issue(
        state,
        Subject {
            user_id: &family.user_id,
            client_id: &family.client_id,
            auth_time_ms: family.auth_time_ms,
            nonce: None,
        },
        &minted.access_token,
    )
    .await?;
    let granted = scope.unwrap_or_else(|| family.scope.clone());
    Ok(respond(minted, id_token, granted))
}
