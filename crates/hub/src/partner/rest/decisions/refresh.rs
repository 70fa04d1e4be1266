use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};

use crate::flows::redecide::refresh as redecide;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::decision::DecisionView;

/// Run the model again on an approved or referred application
/// (`decision.completed`). The register and the credit file are read anew;
/// the applicant's bank summary and identity checks are kept as the journey
/// gathered them (reading the bank again needs the applicant). The decision
/// keeps its id; its outcome, reasons, offer and `decided_at` are the new
/// run's, and the application follows the outcome. A locked decision (offer
/// accepted) is 423; a declined one is final (409).
#[utoipa::path(post, operation_id = "refreshDecision", path = "/decisions/{id}/refresh", tag = "decisions",
    security(("oauth2" = ["applications.write"]), ("api_key" = [])),
    params(("id" = String, Path, description = "dec_…"),
        ("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    responses((status = 200, body = DecisionView),
        (status = 400, description = "idempotency_key_malformed"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found"),
        (status = 409, description = "conflict: declined (final), withdrawn, expired or funded; or changed concurrently"),
        (status = 423, description = "decision_locked: the offer was accepted and signed"),
        (status = 429, description = "rate_limited: the refresh sub-limit is 1 request per second"),
        (status = 503, description = "service_unavailable: the register or the credit bureau could not be reached")))]
pub async fn refresh(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::ApplicationsWrite)?;
    state
        .idempotency
        .run_maybe(write.guarded(&key, b""), || async {
            let (view, writes) = redecide(&state.flows, &write.owner, &id, write.now).await?;
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
