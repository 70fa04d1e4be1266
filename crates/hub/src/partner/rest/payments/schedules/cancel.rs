use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::schedule::NotCancellable;
use lendhub_domain::scope::PartnerScope;
use lendhub_store::{LendingWrite, WriteSet};

use super::{ScheduleView, find};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;

/// Cancel an open-ended schedule: tombstoned (`cancelled`, still readable),
/// no further instalment is initiated; one already initiated runs its
/// course. Cancelling it again answers the same. A fixed schedule runs to
/// its final instalment: 409.
#[utoipa::path(delete, operation_id = "cancelPaymentSchedule", path = "/payments/schedules/{id}", tag = "payments",
    security(("oauth2" = ["payments.write"]), ("api_key" = [])),
    params(("id" = String, Path, description = "sch_…")),
    responses((status = 200, body = ScheduleView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such schedule of yours in this environment"),
        (status = 409, description = "conflict: a fixed schedule, or one already completed or ended")))]
pub async fn cancel(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<ScheduleView>, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::PaymentsWrite)?;
    let schedule = find(&state, &write.owner, &id).await?;
    let cancelled = match schedule.cancelled(write.now) {
        Ok(Some(cancelled)) => cancelled,
        Ok(None) => return Ok(Json(ScheduleView::load(&state, &schedule).await?)),
        Err(NotCancellable::Fixed) => {
            return Err(PartnerError::Conflict(
                "a fixed schedule runs to its final instalment and cannot be cancelled",
            ));
        }
        Err(NotCancellable::Finished(_)) => {
            return Err(PartnerError::Conflict(
                "the schedule has already completed or ended",
            ));
        }
    };
    let mut writes = WriteSet::default();
    writes.push(LendingWrite::UpdateSchedule(cancelled.clone()));
    state.units.commit(writes).await?;
    Ok(Json(ScheduleView::load(&state, &cancelled).await?))
}
