//! Open applications expire at `expires_at` on their owner's clock
//! (`application.expired`): a queue for the shared worker loop, woken when
//! a test clock moves.

use async_trait::async_trait;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::events::EventType;
use lendhub_domain::lending::Application;
use lendhub_domain::retry::{Attempted, Backoff};
use lendhub_domain::test_clock::ClientClock;
use lendhub_jobs::{Attempt, Failure, Outcome, Queue, Timing};
use lendhub_store::{
    CommitError, DueExpiry, EventWrite, Lease, LendingWrite, StoreError, WriteSet,
};
use time::OffsetDateTime;

use super::ApplicationView;
use crate::partner::rest::events::event;
use crate::partner::state::PartnerState;

/// Expires `application` at `now`, with its event, over the version read;
/// `Ok(false)` if it is no longer open (withdrawn meanwhile, or expired by
/// another instance).
pub async fn expire(
    state: &PartnerState,
    application: &Application,
    now: OffsetDateTime,
) -> Result<bool, String> {
    let Some(closed) = application.expire(now) else {
        return Ok(false);
    };
    let view = ApplicationView::new(&closed, state);
    let announced = event(&closed.owner, EventType::ApplicationExpired, &view, now)
        .map_err(|e| e.to_string())?;
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateApplication(closed))
        .push(EventWrite::InsertEvent(announced));
    match state.units.commit(writes).await {
        Ok(()) => Ok(true),
        Err(CommitError::Conflict) => Ok(false),
        Err(e) => Err(e.to_string()),
    }
}

/// Due expiries as a job queue. Like the sandbox's referral reviews, an
/// expiry needs no lease: it is a versioned update, so of several instances
/// exactly one commit wins; one that fails stays due and the next pass
/// takes it again.
pub struct Expiries {
    pub state: PartnerState,
}

struct NextPass;

impl Backoff for NextPass {
    fn next_attempt_ms(&self, failed: Attempted) -> Option<i64> {
        Some(failed.now_ms)
    }
}

#[async_trait]
impl Queue for Expiries {
    type Job = DueExpiry;
    const NAME: &'static str = "application expiries";

    async fn claim(&self, lease: &Lease) -> Result<Vec<DueExpiry>, StoreError> {
        self.state
            .lending
            .due_expiries(lease.due_before_ms, lease.limit)
            .await
    }

    fn timing(&self, due: &DueExpiry) -> Timing {
        let due_ms = unix_ms(due.application.expires_at);
        Timing {
            first_due_ms: due_ms,
            due_ms,
            attempt: 1,
            clock_offset_ms: due.clock_offset_ms,
        }
    }

    async fn attempt(&self, due: &DueExpiry) -> Attempt {
        let now = ClientClock::new(due.clock_offset_ms).now(self.state.clock.now());
        match expire(&self.state, &due.application, now).await {
            Ok(_) => Attempt::Done { status: None },
            Err(error) => Attempt::Failed(Failure {
                error,
                status: None,
            }),
        }
    }

    fn backoff(&self) -> &dyn Backoff {
        &NextPass
    }

    async fn record(&self, due: DueExpiry, outcome: Outcome, _now: OffsetDateTime) {
        match outcome {
            Outcome::Done { .. } => self.state.outbox_wake.notify_one(),
            Outcome::Retry { failure, .. } | Outcome::GiveUp { failure } => {
                tracing::warn!(application = %due.application.id, error = %failure.error,
                    "could not expire an application; the next pass retries it")
            }
        }
    }

    async fn release(&self, _holder: &str) -> Result<u64, StoreError> {
        Ok(0)
    }
}
