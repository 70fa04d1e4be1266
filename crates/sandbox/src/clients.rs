//! Sandbox client administration, shared by the CLI and the first-start demo client.

use lendhub_domain::crypto::{DerivedKey, MasterKey};
use lendhub_domain::partner::credentials::{Environment, NewClientCredentials, hash_secret};
use lendhub_domain::partner::scope::SandboxScopes;
use lendhub_store::{ClientRecord, ClientStatus, SandboxStore, StoreError};
use lendhub_system::generate_client;

pub fn pepper(master_key: &MasterKey) -> DerivedKey {
    master_key.derive("sandbox-client-secret")
}

/// Creates a client; the secret in the result is the only copy in clear.
pub async fn create(
    store: &dyn SandboxStore,
    master_key: &MasterKey,
    name: &str,
    scopes: &SandboxScopes,
    now_ms: i64,
) -> Result<NewClientCredentials, StoreError> {
    let creds = generate_client(Environment::Test);
    store
        .insert_client(ClientRecord {
            client_id: creds.client_id.clone(),
            name: name.to_owned(),
            secret_hash: hash_secret(pepper(master_key).expose(), creds.client_secret.expose())
                .to_vec(),
            scopes: scopes.render(),
            status: ClientStatus::Active,
            created_at_ms: now_ms,
        })
        .await?;
    Ok(creds)
}
