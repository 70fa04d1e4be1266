//! Identity and AML checks over lendhub's person-checks API
//! (`POST /v1/person-checks`, `lendhub_domain::lending::checks_api`): the
//! model identity provider, or a provider that speaks the same shape. A
//! provider with its own API gets an adapter of its own beside this one,
//! behind the same [`PersonRegister`].

use std::time::Duration;

use async_trait::async_trait;
use lendhub_domain::lending::checks_api::{PersonCheckAnswer, PersonCheckRequest};
use lendhub_domain::lending::kyc::{Person, ProviderCheck};
use lendhub_domain::secret::Secret;

use super::hop;
use super::keyed_api::KeyedApi;
use super::{PeopleUnavailable, PersonRegister};

pub struct PersonChecks(KeyedApi);

impl PersonChecks {
    pub fn new(base: &str, key: Secret<String>, timeout: Duration) -> Result<Self, reqwest::Error> {
        Ok(Self(KeyedApi::new(
            "the identity provider",
            base,
            key,
            timeout,
        )?))
    }
}

#[async_trait]
impl PersonRegister for PersonChecks {
    async fn check(
        &self,
        person: &Person,
        company_number: Option<&str>,
    ) -> Result<ProviderCheck, PeopleUnavailable> {
        let request = self
            .0
            .post("/v1/person-checks")
            .json(&PersonCheckRequest::of(person, company_number));
        let sent = hop::send(hop::PERSON_CHECKS, "POST /v1/person-checks", request).await;
        match self
            .0
            .read::<PersonCheckAnswer>("a person check", sent)
            .await
        {
            Ok(Some(answer)) => Ok(ProviderCheck {
                findings: answer.findings(),
                id: answer.id,
            }),
            Ok(None) => Err(PeopleUnavailable(
                "the identity provider has no person-checks API at its URL (404)".to_owned(),
            )),
            Err(why) => Err(PeopleUnavailable(why)),
        }
    }
}
