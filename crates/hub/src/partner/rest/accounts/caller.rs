//! Who reads accounts: a partner (an API key or a partner access token
//! with `accounts.read`, its own accounts in the mount's environment), or
//! a person signed in at lendhub's identity provider whose access token
//! carries the identity scope `accounts.read` — their own company's
//! accounts in that environment, whichever partner introduced them
//! (docs/decisions.md). A person's token is told from a partner's by its
//! shape: opaque, where a partner's is a JWT or a prefixed key.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use lendhub_domain::identity::claims::{IdentityScope, IdentityScopes};
use lendhub_domain::partner::credentials::{Environment, Presented, parse_access_token, presented};
use lendhub_domain::partner::project::Tier;
use lendhub_domain::partner::scope::{PartnerScope, Scope};
use lendhub_domain::servicing::account::borrower_key;

use crate::flows::accounts::Reader;
use crate::partner::error::PartnerError;
use crate::partner::people::PersonToken;
use crate::partner::rest::caller::{RestCaller, admit, bearer, route};
use crate::partner::state::PartnerState;

pub enum AccountsCaller {
    Partner(RestCaller),
    /// `borrower` is the person's company in the mount's environment
    /// (`Account::borrower`).
    Person {
        borrower: String,
        env: Environment,
    },
}

impl AccountsCaller {
    pub fn env(&self) -> Environment {
        match self {
            AccountsCaller::Partner(c) => c.env,
            AccountsCaller::Person { env, .. } => *env,
        }
    }

    /// Who reads, for the accounts flows.
    pub fn reader(&self, state: &PartnerState) -> Reader {
        match self {
            AccountsCaller::Partner(c) => Reader::Partner {
                owner: c.tenant(),
                now: c.now(state),
            },
            AccountsCaller::Person { borrower, .. } => Reader::Borrower {
                borrower: borrower.clone(),
            },
        }
    }
}

impl FromRequestParts<PartnerState> for AccountsCaller {
    type Rejection = PartnerError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &PartnerState,
    ) -> Result<Self, Self::Rejection> {
        let credential = bearer(parts)?;
        let personal =
            presented(credential) == Presented::Other && parse_access_token(credential).is_some();
        let Some(people) = state.settings.people.as_ref().filter(|_| personal) else {
            let caller = RestCaller::from_request_parts(parts, state).await?;
            caller.require(PartnerScope::AccountsRead)?;
            return Ok(AccountsCaller::Partner(caller));
        };
        let person = match people.person(credential).await? {
            PersonToken::Valid(person) => person,
            PersonToken::Invalid => {
                return Err(PartnerError::Unauthenticated(
                    "the access token is not valid",
                ));
            }
            PersonToken::Revoked => return Err(PartnerError::TokenRevoked),
            PersonToken::Expired => return Err(PartnerError::TokenExpired),
        };
        let granted = IdentityScopes::parse(&person.scope).unwrap_or_default();
        if !granted.contains(IdentityScope::AccountsRead) {
            return Err(PartnerError::InsufficientScope(
                IdentityScope::AccountsRead.as_str(),
            ));
        }
        let (env, _) = route(parts);
        // A person's calls spend a bucket of their own at the build tier's
        // limits, as a test environment's do.
        admit(
            parts,
            state,
            &format!("person:{}", person.user_id),
            Tier::Build,
        )
        .await?;
        Ok(AccountsCaller::Person {
            borrower: borrower_key(&person.company_number, env == Environment::Live),
            env,
        })
    }
}
