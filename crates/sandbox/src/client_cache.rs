//! Active clients, remembered after their first lookup so issuing a token
//! needs no read of its own. Never the last word: the token's insert commits
//! only while the client is still active in the store, so a revocation made
//! anywhere takes effect at once, and a revoked client is forgotten here.
//! Sandbox secrets never change (clients are revoked, not rotated); if they
//! ever can, the insert's condition must cover the secret hash as well.

use std::collections::HashMap;

use lendhub_store::{ClientRecord, ClientStatus, SandboxStore, StoreError};
use parking_lot::Mutex;

const CAPACITY: usize = 4096;

#[derive(Default)]
pub(crate) struct ClientCache(Mutex<HashMap<String, ClientRecord>>);

impl ClientCache {
    /// The client, from memory or the store; `None` if unknown or revoked.
    pub async fn active(
        &self,
        store: &dyn SandboxStore,
        client_id: &str,
    ) -> Result<Option<ClientRecord>, StoreError> {
        if let Some(known) = self.0.lock().get(client_id).cloned() {
            return Ok(Some(known));
        }
        let Some(client) = store
            .client(client_id)
            .await?
            .filter(|c| c.status == ClientStatus::Active)
        else {
            return Ok(None);
        };
        let mut clients = self.0.lock();
        if clients.len() >= CAPACITY {
            clients.clear();
        }
        clients.insert(client_id.to_owned(), client.clone());
        Ok(Some(client))
    }

    pub fn forget(&self, client_id: &str) {
        self.0.lock().remove(client_id);
    }
}
