//! People signed in at lendhub's own identity provider who call the
//! partner ring with their access token: the seed's `accounts.read`
//! identity scope "lets the token call the accounts API for the user".
//! The provider lives in another crate; the ring asks it through this
//! trait, so neither knows the other's insides.

use async_trait::async_trait;
use lendhub_store::StoreError;

/// Who a person's access token proves.
#[derive(Clone, Debug)]
pub struct Person {
    pub user_id: String,
    /// Their company (the `business` claims), empty when they gave none.
    pub company_number: String,
    /// The identity scopes granted, space-separated.
    pub scope: String,
}

/// What a presented person's access token proves.
#[derive(Debug)]
pub enum PersonToken {
    Valid(Person),
    /// Malformed, unknown, or not matching.
    Invalid,
    Revoked,
    Expired,
}

#[async_trait]
pub trait PersonTokens: Send + Sync + std::fmt::Debug {
    async fn person(&self, token: &str) -> Result<PersonToken, StoreError>;
}
