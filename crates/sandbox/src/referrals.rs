//! Referred applications settle on their own: a simulated underwriter
//! decides each one a fixed delay after its decision, on its owner's test
//! clock (`lendhub_domain::sandbox::application::Application::settle_referral`), and a
//! second `decision.completed` event reports it.
//!
//! What is due is read from the store (`applications.review_due_ms`), so
//! nothing is lost across restarts or `kill -9`: a review is pending until the
//! commit that settles it. Settling is a versioned update, so when several
//! instances (or the worker and an advancing request) reach the same review,
//! exactly one commit wins and the others find it settled.

use async_trait::async_trait;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::retry::{Attempted, Backoff};
use lendhub_domain::sandbox::application::Application;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::sandbox::test_clock::ClientClock;
use lendhub_jobs::{Attempt, Failure, Outcome, Queue, Timing};
use lendhub_store::{
    CommitError, DueReferral, EventWrite, Lease, SandboxWrite, StoreError, WriteSet,
};

use crate::error::SandboxError;
use crate::event_log::event;
use crate::state::SandboxState;
use crate::views::{DecisionView, application_record};
use lendhub_domain::tenant::Tenant;

const BATCH: u32 = 64;

/// Settles every review that is due, in batches; only `owner`'s when given.
/// Returns how many this call settled.
pub async fn settle_due(
    state: &SandboxState,
    owner: Option<&Tenant>,
) -> Result<usize, SandboxError> {
    let mut settled = 0;
    loop {
        let due = state
            .sandbox
            .due_referrals(owner, state.clock.now_ms(), BATCH)
            .await?;
        let full = due.len() == BATCH as usize;
        let mut progressed = false;
        for referral in due {
            let now = ClientClock::new(referral.clock_offset_ms).now(state.clock.now());
            match settle(state, &referral.application, now).await {
                Ok(()) => {
                    settled += 1;
                    progressed = true;
                }
                // Settled (or reset) by someone else in the meantime.
                Err(SandboxError::Conflict(_)) => {}
                Err(e) => return Err(e),
            }
        }
        if !full || !progressed {
            break;
        }
    }
    if settled > 0 {
        state.outbox_wake.notify_one();
    }
    Ok(settled)
}

async fn settle(
    state: &SandboxState,
    app: &Application,
    now: time::OffsetDateTime,
) -> Result<(), SandboxError> {
    let next = app
        .settle_referral(now)
        .map_err(|e| SandboxError::Conflict(e.to_string()))?;
    let mut writes = WriteSet::default();
    writes
        .push(SandboxWrite::UpdateApplication(application_record(&next)?))
        .push(EventWrite::InsertEvent(event(
            &next.owner,
            EventType::DecisionCompleted,
            &DecisionView::from(&next),
            now,
        )?));
    match state.writes.commit(writes).await {
        Ok(()) => {
            tracing::info!(application = %next.id, owner = %next.owner,
                outcome = ?next.decision.outcome, "referred application settled");
            Ok(())
        }
        Err(CommitError::Conflict) => Err(SandboxError::Conflict("already settled".into())),
        Err(e) => Err(e.into()),
    }
}

/// Referral reviews as a job queue for the shared worker loop. A review
/// needs no lease: settling is a versioned update, so of several instances
/// reaching one review exactly one commit wins and the others find it
/// settled (`Done`). A review that fails to commit stays due in the store
/// and the next pass takes it again, so it has no retry schedule of its own.
pub struct Reviews {
    pub state: SandboxState,
}

/// Reviews carry no retry bookkeeping: what is due is read again each pass.
struct NextPass;

impl Backoff for NextPass {
    fn next_attempt_ms(&self, failed: Attempted) -> Option<i64> {
        Some(failed.now_ms)
    }
}

#[async_trait]
impl Queue for Reviews {
    type Job = DueReferral;
    const NAME: &'static str = "referral reviews";

    async fn claim(&self, lease: &Lease) -> Result<Vec<DueReferral>, StoreError> {
        self.state
            .sandbox
            .due_referrals(None, lease.due_before_ms, lease.limit)
            .await
    }

    fn timing(&self, due: &DueReferral) -> Timing {
        let due_ms = due.application.review_due_at().map(unix_ms).unwrap_or(0);
        Timing {
            first_due_ms: due_ms,
            due_ms,
            attempt: 1,
            clock_offset_ms: due.clock_offset_ms,
        }
    }

    async fn attempt(&self, due: &DueReferral) -> Attempt {
        let now = ClientClock::new(due.clock_offset_ms).now(self.state.clock.now());
        match settle(&self.state, &due.application, now).await {
            // Settled (or reset) by someone else in the meantime counts as done.
            Ok(()) | Err(SandboxError::Conflict(_)) => Attempt::Done { status: None },
            Err(e) => Attempt::Failed(Failure {
                error: format!("{e:?}"),
                status: None,
            }),
        }
    }

    fn backoff(&self) -> &dyn Backoff {
        &NextPass
    }

    async fn record(&self, due: DueReferral, outcome: Outcome, _now: time::OffsetDateTime) {
        match outcome {
            Outcome::Done { .. } => self.state.outbox_wake.notify_one(),
            Outcome::Retry { failure, .. } | Outcome::GiveUp { failure } => {
                tracing::warn!(application = %due.application.id, error = %failure.error,
                    "could not settle a due referral; the next pass retries it")
            }
        }
    }

    async fn release(&self, _holder: &str) -> Result<u64, StoreError> {
        Ok(0)
    }
}
