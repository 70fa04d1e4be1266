//! The identity provider, as the partner ring asks it who a person's
//! access token proves (`lendhub_hub::partner::people`): the same check
//! `/userinfo` makes, over the same remembered grants.

use std::sync::Arc;

use async_trait::async_trait;
use lendhub_domain::clock::Clock;
use lendhub_hub::partner::people::{Person, PersonToken, PersonTokens};
use lendhub_idp::grants::{Grants, Refused};
use lendhub_store::{SignInStore, StoreError};

pub struct IdpPeople {
    pub grants: Arc<Grants>,
    pub store: Arc<dyn SignInStore>,
    pub clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for IdpPeople {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdpPeople")
    }
}

#[async_trait]
impl PersonTokens for IdpPeople {
    async fn person(&self, token: &str) -> Result<PersonToken, StoreError> {
        let verified = self
            .grants
            .verify(self.store.as_ref(), token, self.clock.now_ms())
            .await;
        Ok(match verified {
            Ok(grant) => PersonToken::Valid(Person {
                user_id: grant.user.user_id.clone(),
                company_number: grant.user.company_number.clone(),
                scope: grant.scope.clone(),
            }),
            Err(Refused::Invalid) => PersonToken::Invalid,
            Err(Refused::Revoked) => PersonToken::Revoked,
            Err(Refused::Expired) => PersonToken::Expired,
            Err(Refused::Store(e)) => return Err(e),
        })
    }
}
