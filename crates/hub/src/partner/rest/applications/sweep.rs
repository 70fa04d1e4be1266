//! Applications that fall due on their owner's clock
//! (`Application::due_at`): an open one expires at `expires_at`
//! (`application.expired`); a referral in the test environment is settled
//! by the simulated underwriter a day after it was referred (a second
//! `decision.completed`). A queue for the shared worker loop, woken when a
//! test clock moves.

use async_trait::async_trait;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::events::EventType;
use lendhub_domain::hub_ids::HubId;
use lendhub_domain::lending::{Application, Status};
use lendhub_domain::retry::{Attempted, Backoff};
use lendhub_domain::test_clock::ClientClock;
use lendhub_jobs::{Attempt, Failure, Outcome, Queue, Timing};
use lendhub_store::{
    CommitError, DueApplication, EventWrite, Lease, LendingWrite, StoreError, WriteSet,
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

/// The simulated underwriter settles a test referral at `now`, logged like
/// a person's act; `Ok(false)` if it is no longer in review.
pub async fn review(
    state: &PartnerState,
    application: &Application,
    now: OffsetDateTime,
) -> Result<bool, String> {
    use crate::partner::rest::decisions::underwriting::{
        Ruling, SIMULATED_UNDERWRITER, UnderwritingError, settle_found,
    };
    let Some(id) = &application.decision_id else {
        return Ok(false);
    };
    let Some(decision) = state
        .lending
        .hub_decision(&application.owner, id.as_str())
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok(false);
    };
    let note = "settled on the test clock a day after the referral (docs/simulators.md)";
    let settled = settle_found(
        state.units.as_ref(),
        application,
        &decision,
        Ruling::Simulated,
        SIMULATED_UNDERWRITER,
        note,
        now,
    )
    .await;
    match settled {
        Ok(_) => Ok(true),
        Err(UnderwritingError::Conflict | UnderwritingError::Refused(_)) => Ok(false),
        Err(e) => Err(e.to_string()),
    }
}

/// Due applications as a job queue. Like the sandbox's referral reviews,
/// they need no lease: each change is a versioned update, so of several
/// instances exactly one commit wins; one that fails stays due and the next
/// pass takes it again.
pub struct Sweep {
    pub state: PartnerState,
}

struct NextPass;

impl Backoff for NextPass {
    fn next_attempt_ms(&self, failed: Attempted) -> Option<i64> {
        Some(failed.now_ms)
    }
}

#[async_trait]
impl Queue for Sweep {
    type Job = DueApplication;
    const NAME: &'static str = "application sweep";

    async fn claim(&self, lease: &Lease) -> Result<Vec<DueApplication>, StoreError> {
        self.state
            .lending
            .due_applications(lease.due_before_ms, lease.limit)
            .await
    }

    fn timing(&self, due: &DueApplication) -> Timing {
        let due_ms = due.application.due_at().map_or(0, unix_ms);
        Timing {
            first_due_ms: due_ms,
            due_ms,
            attempt: 1,
            clock_offset_ms: due.clock_offset_ms,
        }
    }

    async fn attempt(&self, due: &DueApplication) -> Attempt {
        let now = ClientClock::new(due.clock_offset_ms).now(self.state.clock.now());
        let done = match due.application.status {
            Status::InReview => review(&self.state, &due.application, now).await,
            Status::Approved => super::funding::disburse(&self.state, &due.application, now).await,
            _ => expire(&self.state, &due.application, now).await,
        };
        match done {
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

    async fn record(&self, due: DueApplication, outcome: Outcome, _now: OffsetDateTime) {
        match outcome {
            Outcome::Done { .. } => self.state.outbox_wake.notify_one(),
            Outcome::Retry { failure, .. } | Outcome::GiveUp { failure } => {
                tracing::warn!(application = %due.application.id, error = %failure.error,
                    "could not expire or settle an application; the next pass retries it")
            }
        }
    }

    async fn release(&self, _holder: &str) -> Result<u64, StoreError> {
        Ok(0)
    }
}
