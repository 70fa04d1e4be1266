//! A schedule moves with its children (its mandate is established on the
//! pay page, `mandate_at_bank::establish`): the final instalment
//! of a fixed schedule settling completes it (`schedule.completed`), and
//! failing ends it. These writes travel in the commit that moves the
//! child, so the two never disagree.

use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::collection::{Payment, PaymentStatus};
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
