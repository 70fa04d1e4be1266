use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::partner::scope::PartnerScope;

use crate::flows::schedules::{find, view};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::schedule::ScheduleView;

/// A payment schedule of yours: its status, what remains, the next
/// collection and the due dates to come.
#[utoipa::path(get, operation_id = "getPaymentSchedule", path = "/payments/schedules/{id}", tag = "payments",
    security(("oauth2" = ["payments.read"]), ("api_key" = [])),
    params(("id" = String, Path, description = "sch_…")),
    responses((status = 200, body = ScheduleView), (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such schedule of yours in this environment")))]
pub async fn retrieve(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<ScheduleView>, PartnerError> {
    caller.require(PartnerScope::PaymentsRead)?;
    let schedule = find(&state.flows, &caller.tenant(), &id).await?;
    Ok(Json(view(&state.flows, &schedule).await?))
}
