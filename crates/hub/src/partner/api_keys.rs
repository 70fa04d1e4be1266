//! A partner's secret API keys for the REST tier (`sk_live_…`, `sk_test_…`):
//! created, rolled and revoked from the CLI, shown once, kept as a selector
//! and the SHA-256 of a 256-bit verifier, and checked on each request.

use std::sync::Arc;

use lendhub_domain::partner::credentials::{
    Environment, api_key_id, api_key_selector, parse_access_token, verifier_matches,
};
use lendhub_domain::partner::project::PartnerStatus;
use lendhub_domain::partner::scope::PartnerScopes;
use lendhub_store::{ApiKeyRecord, PartnerClientRecord, PartnerStore, StoreError};

use super::error::PartnerError;
use crate::partner::state::PartnerState;

/// A key just made: the only copy of `key` in clear.
pub struct Created {
    pub id: String,
    pub key: lendhub_domain::secret::Secret<String>,
    pub record: ApiKeyRecord,
}

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("no partner client {0}")]
    NoClient(String),
    #[error("no API key {0}")]
    NoKey(String),
    #[error("the client does not hold {0}")]
    ScopeNotHeld(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A new key for `client_id` in `env`, with `scopes` (default: every scope
/// the client holds; never more).
pub async fn create(
    store: &dyn PartnerStore,
    client_id: &str,
    env: Environment,
    scopes: Option<&PartnerScopes>,
    now_ms: i64,
) -> Result<Created, KeyError> {
    let client = store
        .partner_client(client_id)
        .await?
        .ok_or_else(|| KeyError::NoClient(client_id.to_owned()))?;
    let created = mint(&client, env, scopes, now_ms)?;
    store.insert_api_key(created.record.clone()).await?;
    Ok(created)
}

/// A key for `client` in `env`, not yet stored: the caller stores its
/// record (alone, or in a unit of work with what else it changes).
pub fn mint(
    client: &PartnerClientRecord,
    env: Environment,
    scopes: Option<&PartnerScopes>,
    now_ms: i64,
) -> Result<Created, KeyError> {
    let held = PartnerScopes::parse(&client.scopes).unwrap_or_default();
    let scopes = match scopes {
        None => held,
        Some(wanted) => {
            if let Some(extra) = wanted.iter().find(|s| !held.contains(*s)) {
                return Err(KeyError::ScopeNotHeld(
                    lendhub_domain::partner::scope::Scope::as_str(extra).to_owned(),
                ));
            }
            wanted.clone()
        }
    };
    let minted = lendhub_system::generate_api_key(env, now_ms);
    let record = ApiKeyRecord {
        selector: minted.selector.to_vec(),
        verifier_hash: minted.verifier_hash.to_vec(),
        client_id: client.client_id.clone(),
        environment: env,
        scopes: scopes.render(),
        created_at_ms: now_ms,
        expires_at_ms: None,
    };
    Ok(Created {
        id: api_key_id(&minted.selector),
        key: minted.key,
        record,
    })
}

pub fn selector_of(id: &str) -> Result<[u8; 16], KeyError> {
    api_key_selector(id).ok_or_else(|| KeyError::NoKey(id.to_owned()))
}

/// Ends the key `id` at `at_ms` (now, for a revocation).
pub async fn expire(store: &dyn PartnerStore, id: &str, at_ms: i64) -> Result<(), KeyError> {
    if store.expire_api_key(&selector_of(id)?, at_ms).await? {
        Ok(())
    } else {
        Err(KeyError::NoKey(id.to_owned()))
    }
}

/// A successor to key `id` with its environment and scopes; the old key
/// keeps working for `overlap_ms`, so deployments can switch without a gap.
pub async fn roll(
    store: &dyn PartnerStore,
    id: &str,
    overlap_ms: i64,
    now_ms: i64,
) -> Result<Created, KeyError> {
    let old = store
        .api_key(&selector_of(id)?)
        .await?
        .filter(|k| k.active_at(now_ms))
        .ok_or_else(|| KeyError::NoKey(id.to_owned()))?;
    let scopes = PartnerScopes::parse(&old.scopes).unwrap_or_default();
    let created = create(
        store,
        &old.client_id,
        old.environment,
        Some(&scopes),
        now_ms,
    )
    .await?;
    expire(store, id, now_ms.saturating_add(overlap_ms)).await?;
    Ok(created)
}

/// The active key and its active client that `rest` (what follows the
/// `sk_<env>_` prefix) proves, for a request in `env`.
pub async fn authenticate(
    state: &PartnerState,
    env: Environment,
    claimed: Environment,
    rest: &str,
) -> Result<(Arc<ApiKeyRecord>, Arc<PartnerClientRecord>), PartnerError> {
    if claimed != env {
        return Err(PartnerError::InvalidApiKey(match env {
            Environment::Live => {
                "a test key (sk_test_) cannot be used on the live environment; use it under /sandbox/v1"
            }
            Environment::Test => {
                "a live key (sk_live_) cannot be used on the test environment; use it under /partner/v1"
            }
        }));
    }
    let unknown = PartnerError::InvalidApiKey("unknown or revoked API key");
    let (selector, verifier) = parse_access_token(rest).ok_or(unknown)?;
    let key = state
        .directory
        .api_key(state.partners.as_ref(), &selector)
        .await?
        .filter(|k| k.environment == env)
        .filter(|k| verifier_matches(&verifier, &k.verifier_hash))
        .filter(|k| k.active_at(state.clock.now_ms()))
        .ok_or(PartnerError::InvalidApiKey("unknown or revoked API key"))?;
    let client = state
        .directory
        .client(state.partners.as_ref(), &key.client_id)
        .await?
        .ok_or(PartnerError::InvalidApiKey(
            "the key's partner no longer exists",
        ))?;
    if client.status == PartnerStatus::Suspended {
        return Err(PartnerError::AccountSuspended);
    }
    Ok((key, client))
}

/// What a listing shows of a key: never the secret.
pub fn describe(k: &ApiKeyRecord) -> serde_json::Value {
    serde_json::json!({
        "id": api_key_id(&k.selector),
        "client_id": k.client_id,
        "environment": k.environment.as_str(),
        "scopes": k.scopes,
        "created_at_ms": k.created_at_ms,
        "expires_at_ms": k.expires_at_ms,
    })
}
