//! Active clients, remembered between the store's epoch moves, so neither
//! issuing a token nor a bearer check reads the store when warm. A token is
//! sealed, not stored (`lendhub_domain::sandbox::token`): what a check must
//! still learn from the store is whether its client is active and where the
//! client's test clock stands, and that is what is remembered here.
//!
//! The store's `sandbox_epoch`, moved by database triggers when a client is
//! updated or deleted and when a test clock moves, is polled every
//! [`SYNC_INTERVAL`]; everything is forgotten when it moves or cannot be
//! read. A clock moved or reset by this instance is forgotten at once, so a
//! change is seen at once where it was made and within one interval on other
//! instances and after a CLI revocation. Unknown and revoked clients are
//! never remembered.

use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::tenant::Tenant;
use lendhub_store::epoch_cache::{self, EpochCache};
use lendhub_store::{ClientRecord, ClientStatus, SandboxStore, StoreError};

pub const SYNC_INTERVAL: Duration = Duration::from_millis(100);
/// Clients are a few hundred bytes; the memory starts again past this many.
const CAPACITY: usize = 10_000;

/// An active client and its test clock's offset.
#[derive(Debug)]
pub struct KnownClient {
    pub record: ClientRecord,
    pub clock_offset_ms: i64,
}

pub struct KnownClients(EpochCache<String, Arc<KnownClient>>);

impl Default for KnownClients {
    fn default() -> Self {
        Self(EpochCache::new(CAPACITY))
    }
}

impl KnownClients {
    /// The client, if it exists and is active.
    pub async fn active(
        &self,
        store: &dyn SandboxStore,
        client_id: &str,
    ) -> Result<Option<Arc<KnownClient>>, StoreError> {
        self.0
            .get_or_read(client_id, || async {
                let Some(record) = store
                    .client(client_id)
                    .await?
                    .filter(|c| c.status == ClientStatus::Active)
                else {
                    return Ok(None);
                };
                let clock_offset_ms = store
                    .clock_offset(&Tenant::sandbox_client(client_id))
                    .await?;
                Ok(Some(Arc::new(KnownClient {
                    record,
                    clock_offset_ms,
                })))
            })
            .await
    }

    /// After this instance moved or reset a test clock.
    pub fn forget(&self) {
        self.0.forget();
    }

    /// Polls the epoch every [`SYNC_INTERVAL`] until `stop` resolves.
    pub async fn run(
        self: Arc<Self>,
        store: Arc<dyn SandboxStore>,
        stop: impl Future<Output = ()>,
    ) {
        let observe = |epoch| {
            self.0.observe(epoch);
        };
        epoch_cache::poll(
            SYNC_INTERVAL,
            "sandbox",
            || store.sandbox_epoch(),
            observe,
            stop,
        )
        .await;
    }
}
