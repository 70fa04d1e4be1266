//! A partner's payment schedules: set up against an account that still
//! owes (and, when named, a mandate of that account's the payer has not
//! revoked), and cancelled where the schedule allows it. The scheduler
//! (`schedule_collect`, `schedule_follow`) runs them.

use lendhub_domain::ids::{HubId, ScheduleId};
use lendhub_domain::servicing::schedule::{NotCancellable, Schedule};
use lendhub_domain::servicing::schedule_request::CheckedSchedule;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{LendingWrite, WriteSet};
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::collectable;
use crate::flows::error::FlowError;
use crate::views::schedule::ScheduleView;

/// A schedule of `owner`'s; 404 for another's.
pub async fn find(cx: &Context, owner: &Tenant, raw_id: &str) -> Result<Schedule, FlowError> {
    let missing = FlowError::NotFound("payment schedule");
    let Some(id) = ScheduleId::parse(raw_id) else {
        return Err(missing);
    };
    cx.servicing.schedule(owner, &id).await?.ok_or(missing)
}

/// The schedule a partner asks for, as it is read back.
pub async fn view(cx: &Context, schedule: &Schedule) -> Result<ScheduleView, FlowError> {
    Ok(ScheduleView::load(cx.servicing.as_ref(), schedule).await?)
}

/// A new schedule on one of `owner`'s accounts, and its write.
pub async fn create(
    cx: &Context,
    owner: &Tenant,
    checked: CheckedSchedule,
    now: OffsetDateTime,
) -> Result<(ScheduleView, WriteSet), FlowError> {
    let account = collectable::account(cx, owner, &checked.account_id).await?;
    collectable::refuse_finished(&account)?;
    let named = match &checked.mandate_id {
        Some(id) => {
            let mandate = cx
                .servicing
                .mandate(owner, id)
                .await?
                .filter(|m| m.account_id == checked.account_id)
                .ok_or(FlowError::NotFound("mandate"))?;
            if !mandate.is_active() {
                return Err(FlowError::Conflict(
                    "the payer revoked this mandate; omit mandate_id to have the first collection establish a new one",
                ));
            }
            Some(mandate)
        }
        None => None,
    };
    let id: ScheduleId = lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let schedule = Schedule {
        reference: account.reference.clone(),
        ..Schedule::new(
            id,
            owner.clone(),
            checked.account_id,
            checked.cadence,
            checked.amount,
            checked.start_date,
            checked.count,
            checked.mandate_id,
            now,
        )
    };
    // The payer's bank holds lendhub to what the payer agreed: a schedule
    // taking more, or as often under another period, would be refused
    // there instalment by instalment.
    if named.is_some_and(|m| !m.covers(&schedule)) {
        return Err(FlowError::Conflict(
            "the mandate's consent at the payer's bank does not cover this schedule's instalments or cadence; omit mandate_id to have the first collection ask the payer for one that does",
        ));
    }
    let view = ScheduleView::new(&schedule, None);
    let mut writes = WriteSet::default();
    writes.push(LendingWrite::InsertSchedule(schedule));
    Ok((view, writes))
}

/// Schedule `raw_id` cancelled, when it may be: an open-ended one, or a
/// fixed one whose mandate the payer revoked. Cancelling it again answers
/// the same and writes nothing.
pub async fn cancel(
    cx: &Context,
    owner: &Tenant,
    raw_id: &str,
    now: OffsetDateTime,
) -> Result<(ScheduleView, WriteSet), FlowError> {
    let schedule = find(cx, owner, raw_id).await?;
    let revoked = match &schedule.mandate_id {
        Some(m) => cx
            .servicing
            .mandate(owner, m)
            .await?
            .is_some_and(|m| !m.is_active()),
        None => false,
    };
    let mut writes = WriteSet::default();
    let view = match schedule.cancelled(revoked, now) {
        Ok(Some(cancelled)) => {
            let view = view(cx, &cancelled).await?;
            writes.push(LendingWrite::UpdateSchedule(cancelled));
            view
        }
        Ok(None) => view(cx, &schedule).await?,
        Err(NotCancellable::Fixed) => {
            return Err(FlowError::Conflict(
                "a fixed schedule runs to its final instalment unless the payer revokes its mandate",
            ));
        }
        Err(NotCancellable::Finished(_)) => {
            return Err(FlowError::Conflict(
                "the schedule has already completed or ended",
            ));
        }
    };
    Ok((view, writes))
}
