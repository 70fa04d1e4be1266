//! The counterparties the hub reaches beyond its own database, one trait
//! each, with the built-in deterministic simulator as the default adapter
//! (`docs/simulators.md` lists their magic values).

use async_trait::async_trait;
use lendhub_domain::kyc::{self, Findings, Person};
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

/// The person register (KYC/AML: identity, sanctions and PEP lists, and the
/// company's officers) could not be asked.
#[derive(Debug, thiserror::Error)]
#[error("the person register is unavailable: {0}")]
pub struct PeopleUnavailable(pub String);

/// Identity and AML checks of a person (a KYC provider in production).
#[async_trait]
pub trait PersonRegister: Send + Sync {
    /// What the register finds for `person`; directorship only when a
    /// company is named.
    async fn check(
        &self,
        person: &Person,
        company_number: Option<&str>,
    ) -> Result<Findings, PeopleUnavailable>;
}

/// The built-in register: `lendhub_domain::kyc::synthetic`.
pub struct SyntheticPeople;

#[async_trait]
impl PersonRegister for SyntheticPeople {
    async fn check(
        &self,
        person: &Person,
        company_number: Option<&str>,
    ) -> Result<Findings, PeopleUnavailable> {
        Ok(kyc::synthetic(person, company_number.is_some()))
    }
}
