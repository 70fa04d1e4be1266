//! Access-token grants and relying parties' records remembered between
//! identity changes, so `/userinfo` reads nothing once warm (a read per
//! request cost about a third of its throughput), and `/authorize` and
//! `/token` do not read the client they serve every time. The `sso_epoch` counter, moved by database triggers whenever
//! a token family is revoked or a person changes, is polled every
//! [`SYNC_INTERVAL`]; a revocation made by this instance is forgotten at
//! once. So a revoked family's access tokens stop working at once where the
//! revocation happened and within one interval on other instances.
//! Expiry is checked on every request against the clock.

use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::partner::credentials::{parse_access_token, verifier_matches};
use lendhub_store::epoch_cache::{self, EpochCache};
use lendhub_store::{AccessGrant, IdentityDirectory, SignInStore, SsoClientRecord, StoreError};

pub const SYNC_INTERVAL: Duration = Duration::from_millis(100);
/// About 10 MB of grants at most; the memory starts again past it.
const CAPACITY: usize = 20_000;

pub struct Grants {
    grants: EpochCache<Vec<u8>, Arc<AccessGrant>>,
    /// Relying parties by client id: a handful, changed only by the
    /// operator's command line, whose change moves the epoch too.
    clients: EpochCache<String, Arc<SsoClientRecord>>,
}

/// Relying parties remembered at most (there are a handful).
const CLIENTS: usize = 1_000;

/// Why a presented access token proves nothing.
#[derive(Debug)]
pub enum Refused {
    /// Malformed, unknown, or its verifier does not match.
    Invalid,
    Revoked,
    Expired,
    Store(StoreError),
}

impl Default for Grants {
    fn default() -> Self {
        Self {
            grants: EpochCache::new(CAPACITY),
            clients: EpochCache::new(CLIENTS),
        }
    }
}

impl Grants {
    /// The grant of the access token with this selector, if any.
    pub async fn get(
        &self,
        store: &dyn SignInStore,
        selector: &[u8],
    ) -> Result<Option<Arc<AccessGrant>>, StoreError> {
        self.grants
            .get_or_read(selector, || async {
                Ok(store.sso_access(selector).await?.map(Arc::new))
            })
            .await
    }

    /// The live grant a presented access token proves: its verifier
    /// matches (in constant time), its family stands, and it has not
    /// expired at `now_ms`. `/userinfo` and the partner ring's accounts API
    /// (a person reading their own company's accounts) both ask this.
    pub async fn verify(
        &self,
        store: &dyn SignInStore,
        token: &str,
        now_ms: i64,
    ) -> Result<Arc<AccessGrant>, Refused> {
        let (selector, verifier_hash) = parse_access_token(token).ok_or(Refused::Invalid)?;
        let grant = self
            .get(store, &selector)
            .await
            .map_err(Refused::Store)?
            .filter(|g| verifier_matches(&verifier_hash, &g.verifier_hash))
            .ok_or(Refused::Invalid)?;
        if grant.family_revoked {
            return Err(Refused::Revoked);
        }
        if now_ms >= grant.expires_at_ms {
            return Err(Refused::Expired);
        }
        Ok(grant)
    }

    /// The registered (and not disabled) client `client_id`, if any.
    pub async fn client(
        &self,
        directory: &dyn IdentityDirectory,
        client_id: &str,
    ) -> Result<Option<Arc<SsoClientRecord>>, StoreError> {
        self.clients
            .get_or_read(client_id, || async {
                Ok(directory.sso_client(client_id).await?.map(Arc::new))
            })
            .await
    }

    /// After this instance revoked a family or ended a session.
    pub fn forget(&self) {
        self.grants.forget();
        self.clients.forget();
    }

    /// Polls the epoch every [`SYNC_INTERVAL`] until `stop` resolves.
    pub async fn run(self: Arc<Self>, store: Arc<dyn SignInStore>, stop: impl Future<Output = ()>) {
        let observe = |epoch| {
            self.grants.observe(epoch);
            self.clients.observe(epoch);
        };
        epoch_cache::poll(SYNC_INTERVAL, "sso", || store.sso_epoch(), observe, stop).await;
    }
}
