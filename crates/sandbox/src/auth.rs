//! Bearer authentication for protected operations. The extractors check the
//! scope too, so a handler's signature says which scope it needs.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use lendhub_domain::credentials::{parse_access_token, verifier_matches};
use lendhub_domain::scope::{SandboxScope, SandboxScopes, Scope};
use lendhub_http::access_log::CallerSlot;
use lendhub_http::headers::bearer_token;

use crate::error::SandboxError;
use crate::state::SandboxState;

#[derive(Clone, Debug)]
pub struct Caller {
    pub client_id: String,
}

async fn authenticate(
    parts: &Parts,
    state: &SandboxState,
    needs: SandboxScope,
) -> Result<Caller, SandboxError> {
    let token = bearer_token(parts).ok_or(SandboxError::Unauthenticated)?;
    let (selector, verifier_hash) = parse_access_token(token).ok_or(SandboxError::InvalidToken)?;
    let record = state
        .store
        .token(&selector)
        .await?
        .ok_or(SandboxError::InvalidToken)?;
    if !verifier_matches(&verifier_hash, &record.verifier_hash) {
        return Err(SandboxError::InvalidToken);
    }
    if record.expires_at_ms <= state.clock.now_ms() {
        return Err(SandboxError::TokenExpired);
    }
    if let Some(slot) = parts.extensions.get::<CallerSlot>() {
        slot.set(&record.client_id);
    }
    if !SandboxScopes::parse(&record.scopes)
        .unwrap_or_default()
        .contains(needs)
    {
        return Err(SandboxError::InsufficientScope(needs.as_str()));
    }
    Ok(Caller {
        client_id: record.client_id,
    })
}

/// A caller holding `sandbox:read`.
pub struct Reader(pub Caller);

/// A caller holding `sandbox:write`.
pub struct Writer(pub Caller);

impl FromRequestParts<SandboxState> for Reader {
    type Rejection = SandboxError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &SandboxState,
    ) -> Result<Self, SandboxError> {
        authenticate(parts, state, SandboxScope::Read)
            .await
            .map(Reader)
    }
}

impl FromRequestParts<SandboxState> for Writer {
    type Rejection = SandboxError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &SandboxState,
    ) -> Result<Self, SandboxError> {
        authenticate(parts, state, SandboxScope::Write)
            .await
            .map(Writer)
    }
}
