//! A 26-character Crockford id in the path. A malformed id names nothing, so
//! it answers 404 before the body is even read.

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use lendhub_domain::sandbox::ids::{SandboxId, kind};

use crate::error::SandboxError;

/// The path's id, of the kind the route names (`PathId<kind::Event>`), or
/// of no kind in particular.
pub struct PathId<K = kind::Any>(pub SandboxId<K>);

impl<S: Send + Sync, K> FromRequestParts<S> for PathId<K> {
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
