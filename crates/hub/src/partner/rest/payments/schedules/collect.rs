//! The scheduler: a schedule's instalment falls due (the start of its due
//! date on the owner's clock) and is initiated as a child payment. Under an
//! active mandate the payer's bank is asked at once (`payment.created`,
//! then `payment.processing` or `payment.failed`); under a revoked one the
//! instalment fails with `mandate_revoked` without asking; with no mandate
//! yet it is a link for the payer (`payment.created` with its `url`).
//!
//! Exactly once across instances: the child is inserted in the commit that
//! moves the schedule past it, over the version read, so of two instances
//! one commits and the other's loses (and the database holds to one payment
//! per instalment besides). A real bank would see one instruction too: the
//! initiation's reference is the child's, and the loser's is never sent on.

use lendhub_domain::collection::{Instalment, Payment};
use lendhub_domain::events::EventType;
use lendhub_domain::hub_ids::{HubId, PaymentId};
use lendhub_domain::schedule::Schedule;
use lendhub_domain::servicing::AccountStatus;
use lendhub_store::{CommitError, EventWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use crate::counterparties::Initiated;
use crate::partner::rest::events::event;
use crate::partner::rest::payments::PaymentView;
use crate::partner::state::PartnerState;

/// Initiates `schedule`'s next instalment at `now` (its due date), or ends
/// the schedule when there is nothing left to collect. `Ok(false)` if
/// nothing was due or another instance moved the schedule first.
pub async fn collect(
    state: &PartnerState,
    schedule: &Schedule,
    now: OffsetDateTime,
) -> Result<bool, String> {
    let Some((n, due_on)) = schedule.next_instalment() else {
        return Ok(false);
    };
    let owner = &schedule.owner;
    let account = state
        .lending
        .hub_account(owner, schedule.account_id.as_str())
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("schedule {} names no account", schedule.id))?;
    let payoff = match account.status {
        AccountStatus::Settled | AccountStatus::Closed => None,
        _ => {
            let entries = state
                .servicing
                .ledger(owner, account.id.as_str())
                .await
                .map_err(|e| e.to_string())?;
            lendhub_domain::ledger::balance(&account, &entries, now).map(|b| b.payoff)
        }
    };
    let Some(amount) = payoff.and_then(|p| schedule.instalment_amount(n, p)) else {
        // Repaid or closed before its end: nothing more to collect.
        let Some(ended) = schedule.ended(now) else {
            return Ok(false);
        };
        let mut writes = WriteSet::default();
        writes.push(LendingWrite::UpdateSchedule(ended));
        return commit(state, writes).await;
    };

    let id: PaymentId = lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let instalment = Instalment {
        schedule_id: schedule.id.clone(),
        number: n + 1,
        due_on,
    };
    let pending = Payment::instalment(id, schedule, instalment, amount, now);
    let mut announced = vec![(EventType::PaymentCreated, PaymentView::new(&pending, state))];
    let child = match &schedule.mandate_id {
        None => pending,
        Some(mandate_id) => {
            let mandate = state
                .servicing
                .mandate(owner, mandate_id.as_str())
                .await
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("schedule {} names no mandate", schedule.id))?;
            let moved = if mandate.is_active() {
                match state
                    .pisp
                    .initiate(&mandate.payer_bank, amount, pending.id.as_str())
                    .await
                {
                    Initiated::Submitted => pending
                        .authorised(&mandate.payer_bank, now)
                        .map(|p| (p, EventType::PaymentProcessing)),
                    Initiated::Refused(reason) => pending
                        .failed(reason, Some(&mandate.payer_bank))
                        .map(|p| (p, EventType::PaymentFailed)),
                }
            } else {
                pending
                    .failed(
                        lendhub_domain::collection::FailureReason::MandateRevoked,
                        Some(&mandate.payer_bank),
                    )
                    .map(|p| (p, EventType::PaymentFailed))
            };
            let (child, kind) = moved.map_err(|e| e.to_string())?;
            announced.push((kind, PaymentView::new(&child, state)));
            child
        }
    };
    let mut next = schedule.initiated(&child.id);
    // A final instalment that failed at once leaves nothing to wait for.
    if child.failure_reason.is_some() && schedule.is_final(n) {
        next = next.ended(now).unwrap_or(next);
    }
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateSchedule(next))
        .push(LendingWrite::InsertPayment(child));
    for (kind, view) in announced {
        let e = event(owner, kind, &view, now).map_err(|e| e.to_string())?;
        writes.push(EventWrite::InsertEvent(e));
    }
    commit(state, writes).await
}

async fn commit(state: &PartnerState, writes: WriteSet) -> Result<bool, String> {
    match state.units.commit(writes).await {
        Ok(()) => {
            state.outbox_wake.notify_one();
            Ok(true)
        }
        Err(CommitError::Conflict) => Ok(false),
        Err(e) => Err(e.to_string()),
    }
}
