use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::servicing::schedule::NotCancellable;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_store::{LendingWrite, WriteSet};

use super::find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::schedule::ScheduleView;

/// Cancel an open-ended schedule, or a fixed one whose mandate the payer
/// revoked: tombstoned (`cancelled`, still readable), no further
/// instalment is initiated; one already initiated runs its course.
/// Cancelling it again answers the same. Any other fixed schedule runs to
/// its final instalment: 409.
#[utoipa::path(delete, operation_id = "cancelPaymentSchedule", path = "/payments/schedules/{id}", tag = "payments",
    security(("oauth2" = ["payments.write"]), ("api_key" = [])),
    params(("id" = String, Path, description = "sch_…"), ("Idempotency-Key" = Option<String>, Header)),
    responses((status = 200, body = ScheduleView), (status = 400, description = "idempotency_key_malformed"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such schedule of yours in this environment"),
        (status = 409, description = "conflict: a fixed schedule whose mandate stands, or one already completed or ended; idempotency_key_reused or idempotency_key_in_progress")))]
pub async fn cancel(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::PaymentsWrite)?;
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, b""), || async {
            let schedule = find(&state, owner, &id).await?;
            let revoked = match &schedule.mandate_id {
                Some(m) => state
                    .servicing
                    .mandate(owner, m)
                    .await?
                    .is_some_and(|m| !m.is_active()),
                None => false,
            };
            let mut writes = WriteSet::default();
            let view = match schedule.cancelled(revoked, now) {
                Ok(Some(cancelled)) => {
                    let view = ScheduleView::load(state.servicing.as_ref(), &cancelled).await?;
                    writes.push(LendingWrite::UpdateSchedule(cancelled));
                    view
                }
                Ok(None) => ScheduleView::load(state.servicing.as_ref(), &schedule).await?,
                Err(NotCancellable::Fixed) => {
                    return Err(PartnerError::Conflict(
                        "a fixed schedule runs to its final instalment unless the payer revokes its mandate",
                    ));
                }
                Err(NotCancellable::Finished(_)) => {
                    return Err(PartnerError::Conflict(
                        "the schedule has already completed or ended",
                    ));
                }
            };
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
