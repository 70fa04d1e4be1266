//! The `authorization_code` grant (RFC 6749 §4.1.3, RFC 7636 §4.5): a code
//! is good for one presentation, by the client it was issued to, with the
//! same `redirect_uri`, and a `code_verifier` whose S256 is the challenge it
//! was issued for. A code presented again revokes everything its first
//! redemption issued.

use std::collections::HashMap;

use axum::response::Response;
use lendhub_domain::identity::pkce::{s256, verifier_is_valid};
use lendhub_domain::partner::credentials::parse_access_token;
use lendhub_store::{CodeRedemption, GrantRefusal, Redeemed, SsoClientRecord};
use lendhub_system::random_token;

use super::{mint, required, respond};
use crate::error::TokenError;
use crate::id_token::{self, Subject};
use crate::state::IdpState;

pub async fn grant(
    state: &IdpState,
    client: &SsoClientRecord,
    form: &HashMap<&'static str, String>,
) -> Result<Response, TokenError> {
    let code = required(form, "code")?;
    let redirect_uri = required(form, "redirect_uri")?;
    let verifier = required(form, "code_verifier")?;
    if !verifier_is_valid(verifier) {
        return Err(TokenError::InvalidRequest(
            "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~".into(),
        ));
    }
    let Some((selector, verifier_hash)) = parse_access_token(code) else {
        return Err(TokenError::InvalidGrant("the code is not valid"));
    };
    let now = state.clock.now_ms();
    // The access token gets the code's scope (`None`: the family's).
    let minted = mint(now, None);
    let redemption = CodeRedemption {
        selector: selector.to_vec(),
        verifier_hash: verifier_hash.to_vec(),
        client_id: client.client_id.clone(),
        redirect_uri: redirect_uri.to_owned(),
        code_challenge: s256(verifier),
        now_ms: now,
        family_id: random_token(16),
        tokens: minted.stored.clone(),
    };
    let code = match state.sign_ins.redeem_code(redemption).await? {
        Redeemed::Issued(code) => code,
        Redeemed::Refused(refusal) => {
            // A replay revoked a family: this instance forgets its grants now.
            state.grants.forget();
            return Err(TokenError::InvalidGrant(match refusal {
                GrantRefusal::Expired => "the code has expired",
                GrantRefusal::Mismatch => {
                    "the code was issued to another client, for another redirect_uri, or for another code_verifier"
                }
                GrantRefusal::Replayed => {
                    "the code was already used; the tokens issued for it are revoked"
                }
                _ => "the code is not valid",
            }));
        }
    };
    let id_token = id_token::issue(
        state,
        Subject {
            user_id: &code.user_id,
            client_id: &code.client_id,
            auth_time_ms: code.auth_time_ms,
            nonce: code.nonce.as_deref(),
        },
        &minted.access_token,
    )
    .await?;
    Ok(respond(minted, id_token, code.scope))
}
