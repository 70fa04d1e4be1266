use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use lendhub_domain::lending::white_label::{Acceptance, check_acceptance};
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::flows::lending::find;
use crate::flows::sign::{Signer, sign};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::application::ApplicationView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptOffer {
    /// The signatory's full name, as they typed it (1 to 100 characters).
    #[schema(required = true, example = "Ada Lovelace")]
    signed_by: Option<String>,
    /// The applicant read and accepts the agreement.
    #[schema(required = true, schema_with = crate::partner::rest::schemas::must_be_true)]
    accept_terms: Option<bool>,
}

/// White-label journeys: the applicant accepts the approved offer and signs
/// the agreement, as the hosted journey's last page does (`offer.accepted`,
/// then `agreement.signed`). The offer stops being indicative and the
/// decision locks: refreshing or accepting it again is 423
/// `decision_locked`. Disbursement follows; the application stays
/// `approved` until it clears. Live needs the operator's white-label switch.
#[utoipa::path(post, operation_id = "acceptOffer", path = "/applications/{id}/accept", tag = "applications",
    security(("oauth2" = ["applications.write"]), ("api_key" = [])),
    params(("id" = String, Path, description = "app_…"),
        ("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    request_body = AcceptOffer,
    responses((status = 200, body = ApplicationView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed"),
        (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope, or capability_denied: white-label journeys are not switched on for this partner in live"),
        (status = 404, description = "not_found"),
        (status = 409, description = "conflict: not approved (undecided, referred, declined, withdrawn, expired, funded), or the offer expired"),
        (status = 422, description = "validation_failed: signed_by missing or too long, accept_terms not true"),
        (status = 423, description = "decision_locked: the offer was already accepted and signed")))]
pub async fn accept(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
    request: Parts,
    body: JsonBody<AcceptOffer>,
) -> Result<Response, PartnerError> {
    // The partner's server calls; the applicant's own address is theirs to
    // keep. What is recorded is where the signature reached the lender.
    let ip_address = lendhub_http::client_ip::client_ip(&request, &state.settings.trusted_proxies);
    let write = caller.begin_white_label_write(&state)?;
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let input = &body.value;
            let signed_by = check_acceptance(&Acceptance {
                signed_by: input.signed_by.clone(),
                accept_terms: input.accept_terms,
            })?;
            let application = find(&state.flows, owner, &id).await?;
            let decision = match &application.decision_id {
                Some(d) => state.lending.hub_decision(owner, d).await?,
                None => None,
            }
            .ok_or(PartnerError::Conflict(
                "the application has not been decided yet",
            ))?;
            let signer = Signer {
                name: &signed_by,
                ip_address,
                journey: None,
                partner: None,
            };
            let (view, writes) = sign(&state.flows, &application, &decision, signer, now)?;
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
