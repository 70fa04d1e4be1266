//! The unit of work: everything one request changes, across contexts, with
//! the idempotency record that lets it be replayed, in one transaction.

use async_trait::async_trait;

use super::events::EventWrite;
use super::sandbox::SandboxWrite;
use crate::error::{CommitError, StoreError};
use lendhub_domain::tenant::Tenant;

#[derive(Clone, Debug)]
pub struct IdempotencyRecord {
    pub owner: Tenant,
    pub key: String,
    pub fingerprint: [u8; 32],
    pub status: u16,
    pub body: Vec<u8>,
    /// On the owner's clock. A record older than
    /// `lendhub_domain::idempotency::RETENTION` by that clock has expired:
    /// committing a new record under its key replaces it.
    pub created_at_ms: i64,
}

/// One row change within a [`WriteSet`], named by the context that owns the
/// rows. A backend applies each context's variants in a module of their own.
// Unboxed: a write lives for one request and moves once, into the commit;
// a box would cost an allocation per row written.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Write {
    Sandbox(SandboxWrite),
    Events(EventWrite),
    Public(crate::PublicWrite),
    Lending(crate::LendingWrite),
    Commercial(crate::CommercialWrite),
    /// Double-entry transfers, in the commit of what they record.
    Ledger(crate::LedgerWrite),
    /// A dashboard action's audit line, in the action's own commit.
    Audit(crate::AuditRecord),
    /// API keys and client secrets, changed from the dashboard.
    Access(crate::AccessWrite),
    /// A partner's staff and invitations, changed from the dashboard.
    Staff(crate::StaffWrite),
    /// A partner's brand (issue #51 item 2).
    Brand(crate::BrandWrite),
}

impl From<crate::CommercialWrite> for Write {
    fn from(write: crate::CommercialWrite) -> Self {
        Write::Commercial(write)
    }
}

impl From<crate::LedgerWrite> for Write {
    fn from(write: crate::LedgerWrite) -> Self {
        Write::Ledger(write)
    }
}

impl From<crate::LendingWrite> for Write {
    fn from(write: crate::LendingWrite) -> Self {
        Write::Lending(write)
    }
}

impl From<SandboxWrite> for Write {
    fn from(write: SandboxWrite) -> Self {
        Write::Sandbox(write)
    }
}

impl From<EventWrite> for Write {
    fn from(write: EventWrite) -> Self {
        Write::Events(write)
    }
}

/// Everything one request changes. Committed atomically, or not at all.
#[derive(Clone, Debug, Default)]
pub struct WriteSet {
    pub writes: Vec<Write>,
    /// Recorded in the same transaction; a key already taken fails the whole set.
    pub idempotency: Option<IdempotencyRecord>,
}

impl WriteSet {
    pub fn push(&mut self, write: impl Into<Write>) -> &mut Self {
        self.writes.push(write.into());
        self
    }

    /// Whether the set removes an owner's rows wholesale, so that it must not
    /// share a transaction with other requests' writes (whose rows it could
    /// remove or miss depending on their order within it).
    pub fn resets(&self) -> bool {
        self.writes
            .iter()
            .any(|w| matches!(w, Write::Sandbox(SandboxWrite::ResetOwner { .. })))
    }
}

#[async_trait]
pub trait UnitOfWork: Send + Sync {
    async fn idempotency(
        &self,
        owner: &Tenant,
        key: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError>;

    /// Everything one request changes, in one transaction.
    async fn commit(&self, writes: WriteSet) -> Result<(), CommitError>;
}
