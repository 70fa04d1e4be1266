//! The scheduler: a schedule's instalment falls due (the start of its due
//! date on the owner's clock) and becomes a child payment, `pending`
//! (`payment.created`). With no mandate yet it is a link for the payer (the
//! event carries its `url`); under a mandate the payment sweep initiates it
//! at the payer's bank at once (`payments::collect_under_mandate`).
//!
//! Exactly once across instances: the child is inserted in the commit that
//! moves the schedule past it, over the version read, so of two instances
//! one commits and the other's loses (and the database holds to one payment
//! per instalment besides). Only a committed child is ever sent to a bank,
//! and always under its own id, so a bank sees one instruction for it even
//! if two instances' sweeps both ask.

use lendhub_domain::ids::PaymentId;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::account::AccountStatus;
use lendhub_domain::servicing::collection::{Instalment, Payment};
use lendhub_domain::servicing::schedule::Schedule;
use lendhub_store::{CommitError, EventWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use crate::flows::Context;
use crate::flows::events::event;
use crate::views::payment::PaymentView;

/// Initiates `schedule`'s next instalment at `now` (its due date), or ends
/// the schedule when there is nothing left to collect. `Ok(false)` if
/// nothing was due or another instance moved the schedule first.
pub async fn collect(
    cx: &Context,
    schedule: &Schedule,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let Some((n, due_on)) = schedule.next_instalment() else {
        return Ok(false);
    };
    let owner = &schedule.owner;
    let account = cx
        .lending
        .hub_account(owner, &schedule.account_id)
        .await?
        .ok_or_else(|| FlowError::Internal(format!("schedule {} names no account", schedule.id)))?;
    let payoff = match account.status {
        AccountStatus::Settled | AccountStatus::Closed => None,
        _ => {
            let transfers = cx.ledger.loan_transfers(&account.id).await?;
            lendhub_domain::servicing::ledger::balance(&account, &transfers, now).map(|b| b.payoff)
        }
    };
    let Some(amount) = payoff.and_then(|p| schedule.instalment_amount(n, p)) else {
        // Repaid or closed before its end: nothing more to collect.
        let Some(ended) = schedule.ended(now) else {
            return Ok(false);
        };
        let mut writes = WriteSet::default();
        writes.push(LendingWrite::UpdateSchedule(ended));
        return commit(cx, writes).await;
    };

    let id: PaymentId = lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let instalment = Instalment {
        schedule_id: schedule.id.clone(),
        number: n + 1,
        due_on,
    };
    let child = Payment::instalment(id, schedule, instalment, amount, now);
    let created = event(
        owner,
        EventType::PaymentCreated,
        &PaymentView::new(&child, &cx.links),
        now,
    )?;
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateSchedule(schedule.initiated(&child.id)))
        .push(LendingWrite::InsertPayment(child))
        .push(EventWrite::InsertEvent(created));
    commit(cx, writes).await
}

async fn commit(cx: &Context, writes: WriteSet) -> Result<bool, FlowError> {
    match cx.commit(writes).await {
        Ok(()) => Ok(true),
        Err(CommitError::Conflict) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
