//! A 26-character Crockford id in the path. A malformed id names nothing, so
//! it answers 404 before the body is even read.

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use lendhub_domain::sandbox::ids::SandboxId;

use crate::error::SandboxError;

pub struct PathId(pub SandboxId);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = SandboxError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, SandboxError> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| SandboxError::NotFound("resource"))?;
        SandboxId::parse(&raw)
            .map(PathId)
            .ok_or(SandboxError::NotFound("resource"))
    }
}
