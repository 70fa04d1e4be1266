//! The sandbox: its clients, applications and payments,
//! and each client's test clock.

use async_trait::async_trait;
use lendhub_domain::sandbox::application::Application;
use lendhub_domain::sandbox::ids::ApplicationId;
use lendhub_domain::sandbox::payment::Payment;

use crate::error::StoreError;
use lendhub_domain::tenant::Tenant;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientStatus {
    Active,
    Revoked,
}

#[derive(Clone, Debug)]
pub struct ClientRecord {
    pub client_id: String,
    pub name: String,
    pub secret_hash: Vec<u8>,
    /// Space-delimited scopes the client holds.
    pub scopes: String,
    pub status: ClientStatus,
    pub created_at_ms: i64,
}

/// An application and its JSON representation, rendered once when it is
/// written so reads serve it without rebuilding it.
#[derive(Clone, Debug)]
pub struct ApplicationRecord {
    pub application: Application,
    pub rendered: String,
}

/// An application's stored representation and the version it was written at.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderedApplication {
    pub version: i64,
    pub body: String,
}

/// A referred application whose review has fallen due on its owner's clock.
#[derive(Clone, Debug)]
pub struct DueReferral {
    pub application: Application,
    pub clock_offset_ms: i64,
}

/// The sandbox's row changes within a [`crate::WriteSet`].
#[derive(Clone, Debug)]
pub enum SandboxWrite {
    InsertApplication(ApplicationRecord),
    /// Succeeds only if the stored version is `application.version - 1`.
    UpdateApplication(ApplicationRecord),
    InsertPayment(Payment),
    /// Moves the owner's test clock (a sandbox client's, or a REST-tier test
    /// environment's). Succeeds only if its offset is still
    /// `from_offset_ms`; otherwise `Conflict`.
    SetClock {
        owner: Tenant,
        from_offset_ms: i64,
        to_offset_ms: i64,
    },
    /// Removes everything the owner has in the sandbox — applications,
    /// payments, events, deliveries, webhook endpoints, idempotency records
    /// (but `keep_key`, the reset's own) — and puts its clock back to zero.
    /// The client and its tokens stay.
    ResetOwner {
        owner: Tenant,
        keep_key: Option<String>,
    },
}

#[async_trait]
pub trait SandboxStore: Send + Sync {
    async fn insert_client(&self, client: ClientRecord) -> Result<(), StoreError>;
    async fn client(&self, client_id: &str) -> Result<Option<ClientRecord>, StoreError>;
    async fn list_clients(&self) -> Result<Vec<ClientRecord>, StoreError>;
    /// Revokes the client, and so every token it was issued. `false` if unknown.
    async fn revoke_client(&self, client_id: &str, now_ms: i64) -> Result<bool, StoreError>;
    /// A counter that moves with every change to a client or a test clock
    /// (a client revoked, a clock moved), whoever makes it: the sandbox
    /// polls it to know when to forget the clients it remembers.
    async fn sandbox_epoch(&self) -> Result<i64, StoreError>;
    /// The owner's test-clock offset in milliseconds: 0 for a clock never
    /// moved. Owners are sandbox clients and the REST tier's test
    /// environments alike.
    async fn clock_offset(&self, owner: &Tenant) -> Result<i64, StoreError>;

    // Owner-scoped reads: another owner's rows are invisible.
    async fn application(
        &self,
        owner: &Tenant,
        id: &ApplicationId,
    ) -> Result<Option<Application>, StoreError>;
    /// The stored JSON representation of an application, as last written,
    /// with the version it was written at.
    async fn rendered_application(
        &self,
        owner: &Tenant,
        id: &ApplicationId,
    ) -> Result<Option<RenderedApplication>, StoreError>;
    /// The application's version, without reading the rest of it, for
    /// callers that keep it rendered: every change to an application moves
    /// its version.
    async fn sandbox_application_version(
        &self,
        owner: &Tenant,
        id: &ApplicationId,
    ) -> Result<Option<i64>, StoreError>;

    /// Referred applications whose review is due on their owner's clock
    /// (`review_due <= service_now_ms + the owner's offset`), oldest due
    /// first; only `owner`'s when given.
    async fn due_referrals(
        &self,
        owner: Option<&Tenant>,
        service_now_ms: i64,
        limit: u32,
    ) -> Result<Vec<DueReferral>, StoreError>;
}
