use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::ids::{HubId, MandateId};
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_store::WriteSet;

use super::test_only;
use crate::flows::mandates::revoked_writes;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::mandate::MandateView;

/// Act as the payer revoking a mandate at their bank (as they can on the
/// pay page): `mandate.revoked`, and the schedule's next collection fails
/// with `mandate_revoked`. Revoking a revoked mandate answers the same.
#[utoipa::path(post, operation_id = "revokeTestMandate", path = "/test_helpers/mandates/{id}/revoke", tag = "test_helpers",
    security(("api_key" = []), ("oauth2" = [])),
    params(("id" = String, Path, description = "mnd_…"),
        ("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    responses((status = 200, body = MandateView), (status = 400, description = "idempotency_key_malformed"),
        (status = 401, description = "credentials"),
        (status = 403, description = "capability_denied: live credentials"),
        (status = 404, description = "not_found: no such mandate of yours"),
        (status = 409, description = "conflict: the mandate changed concurrently; retry")))]
pub async fn revoke(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
) -> Result<Response, PartnerError> {
    test_only(&caller)?;
    let write = caller.start_write(&state);
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, b""), || async {
            let missing = PartnerError::NotFound("mandate");
            let Some(id) = MandateId::parse(&id) else {
                return Err(missing);
            };
            let mandate = state.servicing.mandate(owner, &id).await?.ok_or(missing)?;
            // As at the payer's bank: the consent ends there too.
            crate::flows::mandate_at_bank::end_at_bank(&state.flows, &mandate).await;
            let mut writes = WriteSet::default();
            let view = match revoked_writes(&state.flows, &mandate, now)
                .map_err(|e| PartnerError::Internal(e.to_string()))?
            {
                Some((revoked, revocation)) => {
                    writes = revocation;
                    MandateView::new(&revoked, &state.links)
                }
                None => MandateView::new(&mandate, &state.links),
            };
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
