use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};

use crate::flows::schedules::cancel as cancel_schedule;
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
    state
        .idempotency
        .run_maybe(write.guarded(&key, b""), || async {
            let (view, writes) =
                cancel_schedule(&state.flows, &write.owner, &id, write.now).await?;
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
