//! What the operator's side of the process needs: liveness, retention and a
//! clean stop.

use async_trait::async_trait;

use crate::error::StoreError;

/// The cut-offs of one retention pass.
#[derive(Clone, Copy, Debug)]
pub struct Retention {
    /// On the service clock; each owner's clock offset is added.
    pub idempotency_before_ms: i64,
    pub tokens_expired_before_ms: i64,
    /// Events created before this on their owner's clock go, with the
    /// finished deliveries due before it.
    pub events_before_ms: i64,
    /// The hosted journeys (who signed in, their e-mail, role and bank) of
    /// applications created before this on their owner's clock that ended
    /// without a loan go; a funded loan's journey is its signer's record.
    pub journeys_before_ms: i64,
}

#[async_trait]
pub trait Maintenance: Send + Sync {
    /// Answers only when the database does.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Drops idempotency records created before `idempotency_before_ms` on
    /// their owner's clock (the service clock's cut-off plus the owner's
    /// offset), events likewise before `events_before_ms` (and the finished
    /// deliveries of that age), and tokens and token revocations past their
    /// retention.
    async fn prune(&self, retention: Retention) -> Result<u64, StoreError>;

    /// Flushes pending writes and stops background threads.
    async fn close(&self);
}
