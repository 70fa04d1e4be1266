//! What this instance remembers of partner clients (the partner's own and
//! its additional OAuth clients, each seen as the partner it acts for), API
//! keys and token revocations,
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

use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::partner::scope::PartnerScopes;
use lendhub_store::epoch_cache::{self, EpochCache};
use lendhub_store::{
    ApiKeyRecord, OAuthClientRecord, PartnerClientRecord, PartnerStore, StoreError,
};

/// How stale another instance's or the CLI's change can look here: the
/// bound documented for suspensions, secret rotations and revocations.
pub const SYNC_INTERVAL: Duration = Duration::from_millis(100);

/// Beyond this many entries a map starts again and refills from use.
const CAPACITY: usize = 10_000;

pub struct Directory {
    clients: EpochCache<String, Arc<PartnerClientRecord>>,
    /// Secret API keys by selector.
    api_keys: EpochCache<[u8; 16], Arc<ApiKeyRecord>>,
    /// Whether each token id seen is revoked.
    revoked: EpochCache<String, bool>,
}

impl Default for Directory {
    fn default() -> Self {
        Self {
            clients: EpochCache::new(CAPACITY),
            api_keys: EpochCache::new(CAPACITY),
            revoked: EpochCache::new(CAPACITY),
        }
    }
}

/// The partner as its additional OAuth client `client_id` acts for it,
/// if that client exists and is not revoked.
async fn acting(
    store: &dyn PartnerStore,
    client_id: &str,
) -> Result<Option<Arc<PartnerClientRecord>>, StoreError> {
    let Some(oauth) = store.oauth_client(client_id).await? else {
        return Ok(None);
    };
    if oauth.revoked_at_ms.is_some() {
        return Ok(None);
    }
    let partner = store.partner_client(&oauth.partner_client_id).await?;
    Ok(partner.map(|p| Arc::new(acting_for(p, oauth))))
}

impl Directory {
    /// The client (if it exists) and whether the token `jti` is revoked.
    pub async fn client_and_revocation(
        &self,
        store: &dyn PartnerStore,
        client_id: &str,
        jti: &str,
    ) -> Result<(Option<Arc<PartnerClientRecord>>, bool), StoreError> {
        let (client_ticket, revoked_ticket) =
            match (self.clients.get(client_id), self.revoked.get(jti)) {
                (Ok(client), Ok(revoked)) => return Ok((Some(client), revoked)),
                (c, r) => (c.err(), r.err()),
            };
        let (client, revoked) = store.partner_client_and_revocation(client_id, jti).await?;
        let client = match client {
            Some(c) => Some(Arc::new(c)),
            None => acting(store, client_id).await?,
        };
        // Unknown clients are not remembered: their ids cost nothing to
        // make up, and no token of ours can name one.
        if let Some(c) = &client {
            if let Some(t) = client_ticket {
                self.clients.put(t, client_id.to_owned(), c.clone());
            }
            if let Some(t) = revoked_ticket {
                self.revoked.put(t, jti.to_owned(), revoked);
            }
        }
        Ok((client, revoked))
    }

    /// The client, if it exists.
    pub async fn client(
        &self,
        store: &dyn PartnerStore,
        client_id: &str,
    ) -> Result<Option<Arc<PartnerClientRecord>>, StoreError> {
        self.clients
            .get_or_read(client_id, || async {
                match store.partner_client(client_id).await? {
                    Some(c) => Ok(Some(Arc::new(c))),
                    None => acting(store, client_id).await,
                }
            })
            .await
    }

    /// The API key with this selector, if it exists (expired or not).
    pub async fn api_key(
        &self,
        store: &dyn PartnerStore,
        selector: &[u8; 16],
    ) -> Result<Option<Arc<ApiKeyRecord>>, StoreError> {
        self.api_keys
            .get_or_read(selector, || async {
                Ok(store.api_key(selector).await?.map(Arc::new))
            })
            .await
    }

    /// After this instance changed a partner or revoked a token.
    pub fn forget(&self) {
        self.clients.forget();
        self.api_keys.forget();
        self.revoked.forget();
    }

    /// Agrees with an epoch just read (`None`: unreadable), forgetting
    /// everything if it moved.
    fn observe(&self, epoch: Option<i64>) {
        self.clients.observe(epoch);
        self.api_keys.observe(epoch);
        self.revoked.observe(epoch);
    }

    /// Syncs every [`SYNC_INTERVAL`] until `stop` resolves.
    pub async fn run(
        self: Arc<Self>,
        store: Arc<dyn PartnerStore>,
        stop: impl Future<Output = ()>,
    ) {
        epoch_cache::poll(
            SYNC_INTERVAL,
            "partner",
            || store.partner_epoch(),
            |epoch| self.observe(epoch),
            stop,
        )
        .await;
    }
}

/// The partner as its additional OAuth client `oauth` sees it: the
/// partner's tenant, tier and status, with the client's secrets and its
/// scopes capped by the partner's (an operator may have narrowed those
/// since the client was made).
pub fn acting_for(partner: PartnerClientRecord, oauth: OAuthClientRecord) -> PartnerClientRecord {
    let held = PartnerScopes::parse(&partner.scopes).unwrap_or_default();
    let scopes = PartnerScopes::parse(&oauth.scopes)
        .unwrap_or_default()
        .intersection(&held);
    PartnerClientRecord {
        secret_hash: oauth.secret_hash,
        previous_secret_hash: oauth.previous_secret_hash,
        previous_secret_expires_at_ms: oauth.previous_secret_expires_at_ms,
        scopes: scopes.render(),
        acting_client_id: Some(oauth.client_id),
        ..partner
    }
}
