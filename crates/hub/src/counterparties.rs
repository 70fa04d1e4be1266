//! The counterparties the hub reaches beyond its own database, one trait
//! each, with the built-in deterministic simulator as the default adapter
//! (`docs/simulators.md` lists their magic values).

use async_trait::async_trait;
use lendhub_domain::register::{self, RegisteredEntity};

/// The register could not be asked (a real adapter's outage): the request
/// answers 503 and may be retried.
#[derive(Debug, thiserror::Error)]
#[error("the company register is unavailable: {0}")]
pub struct RegisterUnavailable(pub String);

/// The company register (Companies House in production).
#[async_trait]
pub trait CompanyRegister: Send + Sync {
    /// The entity a well-formed number resolves to; `None` if none.
    async fn lookup(&self, number: &str) -> Result<Option<RegisteredEntity>, RegisterUnavailable>;
}

/// The built-in register: `lendhub_domain::register::synthetic`.
pub struct SyntheticRegister;

#[async_trait]
impl CompanyRegister for SyntheticRegister {
    async fn lookup(&self, number: &str) -> Result<Option<RegisteredEntity>, RegisterUnavailable> {
        Ok(register::synthetic(number))
    }
}
