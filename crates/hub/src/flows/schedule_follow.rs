//! A schedule moves with its children: the payer's first authorisation of
//! an instalment establishes the schedule's mandate; the final instalment
//! of a fixed schedule settling completes it (`schedule.completed`), and
//! failing ends it. These writes travel in the commit that moves the
//! child, so the two never disagree.

use lendhub_domain::ids::MandateId;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::collection::{Payment, PaymentStatus};
use lendhub_domain::servicing::mandate::Mandate;
use lendhub_domain::servicing::schedule::ScheduleStatus;
use lendhub_store::{EventWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use crate::flows::Context;
use crate::flows::events::event;
use crate::views::schedule::ScheduleView;

/// The schedule's writes that follow its child's move to `next` (which
/// gains the mandate it establishes); none for a payment of no schedule.
pub async fn follow(
    cx: &Context,
    next: &mut Payment,
    now: OffsetDateTime,
) -> Result<WriteSet, FlowError> {
    let mut writes = WriteSet::default();
    let Some(instalment) = next.schedule.clone() else {
        return Ok(writes);
    };
    let Some(schedule) = cx
        .servicing
        .schedule(&next.owner, &instalment.schedule_id)
        .await?
    else {
        return Err(FlowError::Internal(format!(
            "payment {} names no schedule",
            next.id
        )));
    };
    let last = schedule.is_final(instalment.number.saturating_sub(1));
    match next.status {
        // Only a schedule still collecting takes a mandate: a payer paying a
        // link of a cancelled or ended schedule agrees to that payment only.
        PaymentStatus::Processing
            if schedule.mandate_id.is_none() && schedule.status == ScheduleStatus::Active =>
        {
            let Some(bank) = next.payer_bank.clone() else {
                return Ok(writes);
            };
            let id: MandateId =
                lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
            let mandate = Mandate::establish(
                id,
                next.owner.clone(),
                next.account_id.clone(),
                &bank,
                next.id.clone(),
                now,
            );
            next.mandate_id = Some(mandate.id.clone());
            writes
                .push(LendingWrite::UpdateSchedule(
                    schedule.with_mandate(&mandate.id),
                ))
                .push(LendingWrite::InsertMandate(mandate));
        }
        PaymentStatus::Paid if last => {
            if let Some(completed) = schedule.completed(now) {
                let view = ScheduleView::new(&completed, Some(next));
                let announced = event(&next.owner, EventType::ScheduleCompleted, &view, now)?;
                writes
                    .push(LendingWrite::UpdateSchedule(completed))
                    .push(EventWrite::InsertEvent(announced));
            }
        }
        PaymentStatus::Failed if last => {
            if let Some(ended) = schedule.ended(now) {
                writes.push(LendingWrite::UpdateSchedule(ended));
            }
        }
        _ => {}
    }
    Ok(writes)
}
