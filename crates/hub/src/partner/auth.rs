//! Bearer authentication for partner-ring resources: the token must verify
//! (signature, issuer, audience, lifetime, not revoked) and its partner be active.

use axum::extract::{FromRequestParts, MatchedPath};
use axum::http::header;
use axum::http::request::Parts;

use super::error::PartnerError;
use super::limits::Slot;
use super::tokens::{self, Verified};
use crate::partner::state::PartnerState;

pub struct Caller(pub Verified);

impl FromRequestParts<PartnerState> for Caller {
    type Rejection = PartnerError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &PartnerState,
    ) -> Result<Self, Self::Rejection> {
        if lendhub_http::headers::repeated(&parts.headers, header::AUTHORIZATION) {
            return Err(PartnerError::Unauthenticated(
                "send one Authorization header, not several",
            ));
        }
        let value = parts
            .headers
            .get(header::AUTHORIZATION)
            .ok_or(PartnerError::MissingApiKey)?;
        let value = value.to_str().map_err(|_| {
            PartnerError::Unauthenticated("the Authorization header is not valid text")
        })?;
        let token = match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => {
                return Err(PartnerError::Unauthenticated(
                    "use the Bearer scheme with an access token",
                ));
            }
        };
        let verified = tokens::verify(state, token).await?;
        let path = parts
            .extensions
            .get::<MatchedPath>()
            .and_then(|m| m.as_str().strip_prefix(super::PREFIX));
        state
            .limiter
            .admit(
                parts.extensions.get::<Slot>(),
                &verified.client.client_id,
                verified.client.tier,
                path.map(|p| (parts.method.as_str(), p)),
                state.clock.now_ms(),
            )
            .await?;
        Ok(Caller(verified))
    }
}
