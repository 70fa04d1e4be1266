//! Referred applications settle on their own: a simulated underwriter
//! decides each one a fixed delay after its decision, on its owner's test
//! clock (`lendhub_domain::application::Application::settle_referral`), and a
//! second `decision.completed` event reports it.
//!
//! What is due is read from the store (`applications.review_due_ms`), so
//! nothing is lost across restarts or `kill -9`: a review is pending until the
//! commit that settles it. Settling is a versioned update, so when several
//! instances (or the worker and an advancing request) reach the same review,
//! exactly one commit wins and the others find it settled.

use std::time::Duration;

use lendhub_domain::application::Application;
use lendhub_domain::events::EventType;
use lendhub_domain::test_clock::ClientClock;
use lendhub_store::{CommitError, Write, WriteSet};
use tokio_util::sync::CancellationToken;

use crate::error::SandboxError;
use crate::event_log::event;
use crate::state::SandboxState;
use crate::views::{DecisionView, application_record};

const BATCH: u32 = 64;
const IDLE_POLL: Duration = Duration::from_secs(1);

/// Settles every review that is due, in batches; only `owner`'s when given.
/// Returns how many this call settled.
pub async fn settle_due(state: &SandboxState, owner: Option<&str>) -> Result<usize, SandboxError> {
    let mut settled = 0;
    loop {
        let due = state
            .store
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
        .push(Write::UpdateApplication(application_record(&next)?))
        .push(Write::InsertEvent(event(
            &next.owner,
            EventType::DecisionCompleted,
            &DecisionView::from(&next),
            now,
        )?));
    match state.store.commit(writes).await {
        Ok(()) => {
            tracing::info!(application = %next.id, owner = %next.owner,
                outcome = ?next.decision.outcome, "referred application settled");
            Ok(())
        }
        Err(CommitError::Conflict) => Err(SandboxError::Conflict("already settled".into())),
        Err(e) => Err(e.into()),
    }
}

/// The background worker: settles due reviews every second, and at once when
/// a clock moves. Runs until `stop` is cancelled.
pub async fn run(state: SandboxState, stop: CancellationToken) {
    while !stop.is_cancelled() {
        if let Err(e) = settle_due(&state, None).await {
            tracing::warn!(error = ?e, "could not settle due referrals");
        }
        tokio::select! {
            _ = state.referrals_wake.notified() => {}
            _ = tokio::time::sleep(IDLE_POLL) => {}
            _ = stop.cancelled() => return,
        }
    }
}
