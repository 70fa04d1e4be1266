//! The storage interface every surface uses, and one implementation per backend.
//! Handlers see only [`Store`]; nothing backend-specific crosses this line.

pub mod epoch_cache;
mod error;
mod identity;
mod model;
pub mod postgres;
mod public;
pub mod sqlite;

use async_trait::async_trait;

pub use error::{CommitError, StoreError};
pub use identity::*;
pub use model::*;
pub use public::*;

#[async_trait]
pub trait Store: PublicStore + IdentityStore + Send + Sync + 'static {
    /// Answers only when the database does.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Stores `value` under `name` unless a value is already there; returns the
    /// stored value. Lets instances agree on deployment-wide facts (the
    /// master-key check) without a race on who writes first.
    async fn bind_setting(&self, name: &str, value: &[u8]) -> Result<Vec<u8>, StoreError>;

    // Sandbox clients and their tokens.
    async fn insert_client(&self, client: ClientRecord) -> Result<(), StoreError>;
    async fn client(&self, client_id: &str) -> Result<Option<ClientRecord>, StoreError>;
    async fn list_clients(&self) -> Result<Vec<ClientRecord>, StoreError>;
    /// Revokes the client and with it every token it holds. `false` if unknown.
    async fn revoke_client(&self, client_id: &str, now_ms: i64) -> Result<bool, StoreError>;
    /// The token with this selector, if it exists and its client is active.
    /// The caller compares the verifier hash.
    async fn token(&self, selector: &[u8; 16]) -> Result<Option<TokenRecord>, StoreError>;

    // Owner-scoped reads: another owner's rows are invisible.
    async fn application(
        &self,
        owner: &str,
        id: &str,
    ) -> Result<Option<lendhub_domain::application::Application>, StoreError>;
    /// The stored JSON representation of an application, as last written.
    async fn rendered_application(
        &self,
        owner: &str,
        id: &str,
    ) -> Result<Option<String>, StoreError>;
    async fn event(
        &self,
        owner: &str,
        id: &str,
    ) -> Result<Option<lendhub_domain::events::Event>, StoreError>;
    async fn list_events(&self, owner: &str, query: &EventQuery) -> Result<EventPage, StoreError>;
    /// A marker of the owner's newest event that grows whenever the owner gains
    /// an event and changes when its events are removed; `None` when it has none.
    /// Lets a reader tell, with one index probe, whether a page it holds is current.
    async fn event_log_position(&self, owner: &str) -> Result<Option<i64>, StoreError>;
    async fn endpoints(&self, owner: &str) -> Result<Vec<EndpointRecord>, StoreError>;
    async fn idempotency(
        &self,
        owner: &str,
        key: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError>;

    /// Everything one request changes, in one transaction.
    async fn commit(&self, writes: WriteSet) -> Result<(), CommitError>;

    // The webhook outbox.
    async fn claim_deliveries(
        &self,
        claim: DeliveryClaim,
    ) -> Result<Vec<ClaimedDelivery>, StoreError>;
    async fn finish_delivery(&self, result: DeliveryResult) -> Result<(), StoreError>;

    /// Referred applications whose review is due on their owner's clock
    /// (`review_due <= service_now_ms + the owner's offset`), oldest due
    /// first; only `owner`'s when given.
    async fn due_referrals(
        &self,
        owner: Option<&str>,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueReferral>, StoreError>;

    /// Drops idempotency records created before `idempotency_before_ms` on
    /// their owner's clock (the service clock's cut-off plus the owner's
    /// offset), and tokens and token revocations past their retention.
    async fn prune(
        &self,
        idempotency_before_ms: i64,
        tokens_expired_before_ms: i64,
    ) -> Result<u64, StoreError>;

    // Partner projects (the live partner ring).
    async fn insert_partner_client(&self, client: PartnerClientRecord) -> Result<(), StoreError>;
    async fn partner_client(
        &self,
        client_id: &str,
    ) -> Result<Option<PartnerClientRecord>, StoreError>;
    async fn list_partner_clients(&self) -> Result<Vec<PartnerClientRecord>, StoreError>;
    /// `false` if no such client.
    async fn update_partner_client(
        &self,
        client_id: &str,
        change: PartnerClientChange,
        now_ms: i64,
    ) -> Result<bool, StoreError>;

    // Token-signing keys.
    /// The current and previous keys of `purpose`, current first.
    async fn signing_keys(&self, purpose: &str) -> Result<Vec<SigningKeyRecord>, StoreError>;
    /// Stores `key` as the current key of its purpose unless one exists
    /// (instances starting together agree on one).
    async fn ensure_signing_key(&self, key: SigningKeyRecord) -> Result<(), StoreError>;
    /// Makes `key` current, the current key previous, and drops the previous one.
    async fn rotate_signing_key(&self, key: SigningKeyRecord) -> Result<(), StoreError>;

    // Revoked access tokens (JWTs cannot be recalled; their ids are listed).
    async fn revoke_jwt(&self, token: RevokedToken) -> Result<(), StoreError>;
    /// The partner client and whether the token `jti` is revoked, in one
    /// read: what every bearer check needs.
    async fn partner_client_and_revocation(
        &self,
        client_id: &str,
        jti: &str,
    ) -> Result<(Option<PartnerClientRecord>, bool), StoreError>;

    /// A counter that moves whenever any partner client or token revocation
    /// changes, by whichever process: instances poll it to know when what
    /// they remember of partners is out of date.
    async fn partner_epoch(&self) -> Result<i64, StoreError>;

    /// Flushes pending writes and stops background threads.
    async fn close(&self);
}
