//! Access tokens remembered after their first bearer check, so a warm
//! request reads only the resource it asks for: the token's read was one of
//! two SQLite read transactions on every authenticated request, each taking
//! and releasing the WAL index's shared lock.
//!
//! A token row never changes; what a check reads with it can: its client's
//! status and the client's test clock. The store's `sandbox_epoch`, moved by
//! database triggers on both, is polled every [`SYNC_INTERVAL`], and
//! everything is forgotten when it moves or cannot be read. A clock moved
//! or reset by this instance is forgotten at once, so a change is seen at
//! once where it was made and within one interval on other instances and
//! after a CLI revocation. Expiry is checked on every request against the
//! clock, as before.

use std::sync::Arc;
use std::time::Duration;

use lendhub_store::epoch_cache::{self, EpochCache};
use lendhub_store::{SandboxStore, StoreError, TokenRecord};

pub const SYNC_INTERVAL: Duration = Duration::from_millis(100);
/// About 2 MB of tokens at most; the memory starts again past it.
const CAPACITY: usize = 10_000;

pub struct Tokens(EpochCache<[u8; 16], Arc<TokenRecord>>);

impl Default for Tokens {
    fn default() -> Self {
        Self(EpochCache::new(CAPACITY))
    }
}

impl Tokens {
    /// The token with this selector, if it exists and its client is active.
    pub async fn get(
        &self,
        store: &dyn SandboxStore,
        selector: &[u8; 16],
    ) -> Result<Option<Arc<TokenRecord>>, StoreError> {
        self.0
            .get_or_read(selector, || async {
                Ok(store.token(selector).await?.map(Arc::new))
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
