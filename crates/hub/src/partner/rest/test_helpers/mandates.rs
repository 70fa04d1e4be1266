use axum::Json;
use axum::extract::{Path, State};
use lendhub_domain::hub_ids::{HubId, MandateId};
use lendhub_domain::scope::PartnerScope;

use super::test_only;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::payments::mandates::{MandateView, revoke as revoke_mandate};
use crate::partner::state::PartnerState;

/// Act as the payer revoking a mandate at their bank (as they can on the
/// pay page): `mandate.revoked`, and the schedule's next collection fails
/// with `mandate_revoked`. Revoking a revoked mandate answers the same.
#[utoipa::path(post, operation_id = "revokeTestMandate", path = "/test_helpers/mandates/{id}/revoke", tag = "test_helpers",
    security(("api_key" = []), ("oauth2" = ["payments.write"])),
    params(("id" = String, Path, description = "mnd_…")),
    responses((status = 200, body = MandateView), (status = 401, description = "credentials"),
        (status = 403, description = "capability_denied: live credentials; insufficient_scope"),
        (status = 404, description = "not_found: no such mandate of yours"),
        (status = 409, description = "conflict: the mandate changed concurrently; retry")))]
pub async fn revoke(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
) -> Result<Json<MandateView>, PartnerError> {
    test_only(&caller)?;
    let write = caller.begin_write(&state, PartnerScope::PaymentsWrite)?;
    let missing = PartnerError::NotFound("mandate");
    if MandateId::parse(&id).is_none() {
        return Err(missing);
    }
    let mandate = state
        .servicing
        .mandate(&write.owner, &id)
        .await?
        .ok_or(missing)?;
    let revoked = revoke_mandate(&state, &mandate, write.now)
        .await
        .map_err(PartnerError::Unavailable)?
        .ok_or(PartnerError::Conflict(
            "the mandate changed concurrently; retry",
        ))?;
    Ok(Json(MandateView::new(&revoked, &state)))
}
