//! What this instance remembers of partner clients and token revocations,
//! so that a bearer check, an introspection or a token request reads nothing
//! from the store once warm. A read per request would cost a third of the
//! partner ring's throughput on SQLite.
//!
//! Memory is never trusted longer than the store allows. The store keeps a
//! partner epoch that moves with every change to a partner client or a
//! revocation, made by any instance or the CLI (database triggers move it);
//! `sync` polls it every [`SYNC_INTERVAL`] and forgets everything when it
//! has moved, or when the store cannot be read. A change made by this
//! instance is seen by it at once (`forget`), and by other instances and
//! after a CLI command within one interval.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use lendhub_store::{PartnerClientRecord, Store, StoreError};
use parking_lot::Mutex;

/// How stale another instance's or the CLI's change can look here: the
/// bound documented for suspensions, secret rotations and revocations.
pub const SYNC_INTERVAL: Duration = Duration::from_millis(100);

/// Beyond this many entries a map starts again and refills from use.
const CAPACITY: usize = 10_000;

#[derive(Default)]
pub struct Directory(Mutex<Memory>);

#[derive(Default)]
struct Memory {
    /// The store's epoch this memory agrees with; `None` until the first
    /// sync and while the store cannot be read: then every lookup reads.
    epoch: Option<i64>,
    /// Moves with every local forget, so a lookup that read the store
    /// before a change made here cannot put its stale answer back.
    generation: u64,
    clients: HashMap<String, Arc<PartnerClientRecord>>,
    revoked: HashMap<String, bool>,
}

/// When a lookup started, in the memory's terms: what it read may be
/// remembered only if nothing was forgotten since.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Ticket(Option<i64>, u64);

impl Memory {
    fn ticket(&self) -> Ticket {
        Ticket(self.epoch, self.generation)
    }

    fn clear(&mut self) {
        self.generation += 1;
        self.clients.clear();
        self.revoked.clear();
    }
}

fn remember<V>(map: &mut HashMap<String, V>, key: &str, value: V) {
    if map.len() >= CAPACITY {
        map.clear();
    }
    map.insert(key.to_owned(), value);
}

impl Directory {
    /// The client (if it exists) and whether the token `jti` is revoked.
    pub async fn client_and_revocation(
        &self,
        store: &dyn Store,
        client_id: &str,
        jti: &str,
    ) -> Result<(Option<Arc<PartnerClientRecord>>, bool), StoreError> {
        let ticket = {
            let memory = self.0.lock();
            if memory.epoch.is_some()
                && let (Some(client), Some(revoked)) =
                    (memory.clients.get(client_id), memory.revoked.get(jti))
            {
                return Ok((Some(client.clone()), *revoked));
            }
            memory.ticket()
        };
        let (client, revoked) = store.partner_client_and_revocation(client_id, jti).await?;
        let client = client.map(Arc::new);
        let mut memory = self.0.lock();
        if memory.epoch.is_some() && memory.ticket() == ticket {
            // Unknown clients are not remembered: their ids cost nothing to
            // make up, and no token of ours can name one.
            if let Some(c) = &client {
                remember(&mut memory.clients, client_id, c.clone());
                remember(&mut memory.revoked, jti, revoked);
            }
        }
        Ok((client, revoked))
    }

    /// The client, if it exists.
    pub async fn client(
        &self,
        store: &dyn Store,
        client_id: &str,
    ) -> Result<Option<Arc<PartnerClientRecord>>, StoreError> {
        let ticket = {
            let memory = self.0.lock();
            if memory.epoch.is_some()
                && let Some(client) = memory.clients.get(client_id)
            {
                return Ok(Some(client.clone()));
            }
            memory.ticket()
        };
        let client = store.partner_client(client_id).await?.map(Arc::new);
        let mut memory = self.0.lock();
        if let Some(c) = &client
            && memory.epoch.is_some()
            && memory.ticket() == ticket
        {
            remember(&mut memory.clients, client_id, c.clone());
        }
        Ok(client)
    }

    /// After this instance changed a partner or revoked a token.
    pub fn forget(&self) {
        self.0.lock().clear();
    }

    /// Agrees with the store's epoch, forgetting everything if it moved.
    pub async fn sync(&self, store: &dyn Store) {
        let read = store.partner_epoch().await;
        let mut memory = self.0.lock();
        let epoch = match read {
            Ok(e) => Some(e),
            Err(e) => {
                if memory.epoch.is_some() {
                    tracing::warn!(error = %e, "cannot read the partner epoch; partner lookups read the store until it can");
                }
                None
            }
        };
        if memory.epoch != epoch || epoch.is_none() {
            memory.clear();
            memory.epoch = epoch;
        }
    }

    /// Syncs every [`SYNC_INTERVAL`] until `stop` resolves.
    pub async fn run(self: Arc<Self>, store: Arc<dyn Store>, stop: impl Future<Output = ()>) {
        let mut tick = tokio::time::interval(SYNC_INTERVAL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tokio::pin!(stop);
        loop {
            tokio::select! {
                _ = tick.tick() => self.sync(store.as_ref()).await,
                () = &mut stop => return,
            }
        }
    }
}
