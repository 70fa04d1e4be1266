//! Partner projects: live credentials (`pk_live_…` / `sk_live_…`), the secret
//! stored only as a keyed hash, and client authentication for the token plane.

use std::sync::Arc;

use lendhub_domain::crypto::MasterKey;
use lendhub_domain::partner::credentials::{Environment, hash_secret, secret_matches};
use lendhub_domain::partner::project::{PartnerStatus, Tier};
use lendhub_domain::partner::scope::PartnerScopes;
use lendhub_domain::secret::Secret;
use lendhub_http::oauth_form::ClientCredentials;
use lendhub_store::{PartnerClientChange, PartnerClientRecord, PartnerStore, StoreError};
use lendhub_system::generate_client;

use super::error::PartnerError;
pub use super::secrets::pepper;
use crate::partner::state::PartnerState;

pub struct Created {
    pub client_id: String,
    /// The only copy in clear.
    pub client_secret: Secret<String>,
}

pub async fn create(
    store: &dyn PartnerStore,
    master_key: &MasterKey,
    name: &str,
    scopes: &PartnerScopes,
    tier: Tier,
    sandbox_client_id: Option<&str>,
    now_ms: i64,
) -> Result<Created, StoreError> {
    let creds = generate_client(Environment::Live);
    store
        .insert_partner_client(PartnerClientRecord {
            client_id: creds.client_id.clone(),
            name: name.to_owned(),
            secret_hash: hash_secret(pepper(master_key).expose(), creds.client_secret.expose())
                .to_vec(),
            scopes: scopes.render(),
            tier,
            status: PartnerStatus::Active,
            sandbox_client_id: sandbox_client_id.map(str::to_owned),
            created_at_ms: now_ms,
            contact_email: None,
            white_label: false,
            previous_secret_hash: None,
            previous_secret_expires_at_ms: None,
            acting_client_id: None,
        })
        .await?;
    Ok(Created {
        client_id: creds.client_id,
        client_secret: creds.client_secret,
    })
}

/// A new client secret and its keyed hash: the only copy of the secret in
/// clear is the first.
pub fn mint_secret(pepper: &[u8; 32]) -> (Secret<String>, Vec<u8>) {
    let secret = generate_client(Environment::Live).client_secret;
    let hash = hash_secret(pepper, secret.expose()).to_vec();
    (secret, hash)
}

/// A new secret for `client_id`. With `previous_until_ms` the old one keeps
/// working until then; without, it stops at once.
pub async fn rotate_secret(
    store: &dyn PartnerStore,
    master_key: &MasterKey,
    client_id: &str,
    previous_until_ms: Option<i64>,
    now_ms: i64,
) -> Result<Option<Secret<String>>, StoreError> {
    let (secret, hash) = mint_secret(pepper(master_key).expose());
    let change = PartnerClientChange::Secret {
        hash,
        previous_until_ms,
    };
    let changed = store
        .update_partner_client(client_id, change, now_ms)
        .await?;
    Ok(changed.then_some(secret))
}

/// Refuses test keys before anything is looked up: the key prefix must
/// match the environment, and this is the live ring.
pub fn require_live(creds: &ClientCredentials) -> Result<(), PartnerError> {
    let env = |key: &str| Environment::of_key(key);
    match (env(&creds.client_id), env(creds.client_secret.expose())) {
        (Some(Environment::Live), Some(Environment::Live)) => Ok(()),
        (Some(Environment::Test), _) | (_, Some(Environment::Test)) => {
            Err(PartnerError::InvalidApiKey(
                "the partner ring takes live keys (pk_live_/sk_live_); test keys (pk_test_/sk_test_) belong to the sandbox",
            ))
        }
        (id, _) if id != Some(Environment::Live) => Err(PartnerError::InvalidApiKey(
            "a partner client id starts with pk_live_; use the client_id `lendhub partner clients create` printed",
        )),
        _ => Err(PartnerError::InvalidApiKey(
            "a partner client secret starts with sk_live_; use the client_secret `lendhub partner clients create` printed",
        )),
    }
}

/// The stored client these credentials prove at `now_ms`, if it is
/// active: its secret, or the one a roll replaced during the overlap.
pub fn check(
    pepper: &[u8; 32],
    creds: &ClientCredentials,
    stored: Option<Arc<PartnerClientRecord>>,
    now_ms: i64,
) -> Result<Arc<PartnerClientRecord>, PartnerError> {
    let proves = |c: &PartnerClientRecord| {
        secret_matches(pepper, creds.client_secret.expose(), &c.secret_hash)
            || c.previous_secret_at(now_ms)
                .is_some_and(|old| secret_matches(pepper, creds.client_secret.expose(), old))
    };
    let client = match stored {
        Some(c) if proves(&c) => c,
        _ => {
            return Err(PartnerError::InvalidApiKey(
                "unknown client or wrong secret",
            ));
        }
    };
    if client.status == PartnerStatus::Suspended {
        return Err(PartnerError::AccountSuspended);
    }
    Ok(client)
}

/// The active partner these credentials belong to.
pub async fn authenticate(
    state: &PartnerState,
    creds: &ClientCredentials,
) -> Result<Arc<PartnerClientRecord>, PartnerError> {
    require_live(creds)?;
    let stored = state
        .directory
        .client(state.partners.as_ref(), &creds.client_id)
        .await?;
    check(
        state.secret_pepper.expose(),
        creds,
        stored,
        state.clock.now_ms(),
    )
}
