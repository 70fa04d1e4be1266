//! Bearer authentication for protected operations. The extractors check the
//! scope too, so a handler's signature says which scope it needs.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use lendhub_domain::partner::scope::{SandboxScope, Scope};
use lendhub_domain::sandbox::test_clock::ClientClock;
use lendhub_http::access_log::CallerSlot;
use lendhub_http::headers::bearer_token;
use time::OffsetDateTime;

use crate::error::SandboxError;
use crate::state::SandboxState;
use lendhub_domain::tenant::Tenant;

#[derive(Clone, Debug)]
pub struct Caller {
    /// Whose data the request reads and writes: the client's own.
    pub tenant: Tenant,
    /// The caller's test clock, as it stood when the request was authenticated.
    pub clock: ClientClock,
}

impl Caller {
    /// Now, on the caller's clock: what everything the caller owns is timed by.
    pub fn now(&self, state: &SandboxState) -> OffsetDateTime {
        self.clock.now(state.clock.now())
    }
}

async fn authenticate(
    parts: &Parts,
    state: &SandboxState,
    needs: SandboxScope,
) -> Result<Caller, SandboxError> {
    if lendhub_http::headers::repeated(&parts.headers, axum::http::header::AUTHORIZATION) {
        return Err(SandboxError::InvalidToken);
    }
    let token = bearer_token(parts).ok_or(SandboxError::Unauthenticated)?;
    let claims = state
        .token_seal
        .open(token)
        .ok_or(SandboxError::InvalidToken)?;
    // A revoked client's tokens are refused, expired or not.
    let client = state
        .clients
        .active(state.sandbox.as_ref(), &claims.client_id)
        .await?
        .ok_or(SandboxError::InvalidToken)?;
    // Token lifetimes are on the service clock, not the caller's test clock:
    // moving one's own clock must neither expire one's token nor keep it alive.
    if claims.expires_at_ms <= state.clock.now_ms() {
        return Err(SandboxError::TokenExpired);
    }
    if let Some(slot) = parts.extensions.get::<CallerSlot>() {
        slot.set(&claims.client_id);
    }
    if !claims.scopes.contains(needs) {
        return Err(SandboxError::InsufficientScope(needs.as_str()));
    }
    Ok(Caller {
        tenant: Tenant::sandbox_client(&claims.client_id),
        clock: ClientClock::new(client.clock_offset_ms),
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
