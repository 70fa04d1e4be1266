use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::application::{Decision, MAX_NAME};
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::TenantKind;
use lendhub_http::FieldIssue;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::JsonBody;
use lendhub_store::{EventWrite, LendingWrite, WriteSet};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::{ApplicationView, find};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::decisions::change::refused;
use crate::partner::rest::decisions::{DecisionView, OfferView};
use crate::partner::rest::events::event;
use crate::partner::state::PartnerState;

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

/// The `offer.accepted` event's object.
#[derive(Serialize)]
struct AcceptedOffer<'a> {
    id: String,
    object: &'static str,
    decision_id: &'a str,
    application_id: &'a str,
    reference: Option<&'a str>,
    #[serde(flatten)]
    terms: Option<&'a OfferView>,
    #[serde(with = "time::serde::rfc3339")]
    accepted_at: OffsetDateTime,
    livemode: bool,
}

/// The `agreement.signed` event's object.
#[derive(Serialize)]
struct SignedAgreement<'a> {
    id: String,
    object: &'static str,
    application_id: &'a str,
    decision_id: &'a str,
    reference: Option<&'a str>,
    signed_by: Option<&'a str>,
    #[serde(with = "time::serde::rfc3339")]
    signed_at: OffsetDateTime,
    amount_pence: i64,
    term_months: u32,
    livemode: bool,
}

/// The offer's and the agreement's ids share the decision's time-ordered
/// part: one offer and one agreement per decision.
fn sibling_id(prefix: &str, d: &Decision) -> String {
    let s = d.id.as_str();
    format!("{prefix}{}", s.split_once('_').map_or(s, |(_, rest)| rest))
}

/// The `offer.accepted` and `agreement.signed` objects of the accepted
/// decision `d`, at `at`; `view` is `d`'s, whose offer the first carries.
fn accepted<'a>(
    owner: &lendhub_domain::tenant::Tenant,
    d: &'a Decision,
    view: &'a DecisionView,
    at: OffsetDateTime,
) -> (AcceptedOffer<'a>, SignedAgreement<'a>) {
    let livemode = matches!(owner.kind(), TenantKind::Partner { livemode: true, .. });
    let offer = AcceptedOffer {
        id: sibling_id("ofr_", d),
        object: "offer",
        decision_id: d.id.as_str(),
        application_id: d.application_id.as_str(),
        reference: d.reference.as_deref(),
        terms: view.offer(),
        accepted_at: at,
        livemode,
    };
    let agreement = SignedAgreement {
        id: sibling_id("agr_", d),
        object: "agreement",
        application_id: d.application_id.as_str(),
        decision_id: d.id.as_str(),
        reference: d.reference.as_deref(),
        signed_by: d.signed_by.as_deref(),
        signed_at: at,
        amount_pence: d
            .verdict
            .offer
            .as_ref()
            .map_or(0, |o| o.amount_pence.as_pence()),
        term_months: d.verdict.offer.as_ref().map_or(0, |o| o.term_months),
        livemode,
    };
    (offer, agreement)
}

/// The same two objects as JSON: what the test environment's events on
/// demand carry for these types (`test_helpers::specimens`).
pub(crate) fn accepted_objects(
    owner: &lendhub_domain::tenant::Tenant,
    d: &Decision,
    at: OffsetDateTime,
) -> Result<(serde_json::Value, serde_json::Value), serde_json::Error> {
    let view = DecisionView::new(d);
    let (offer, agreement) = accepted(owner, d, &view, at);
    Ok((
        serde_json::to_value(&offer)?,
        serde_json::to_value(&agreement)?,
    ))
}

fn events(
    owner: &lendhub_domain::tenant::Tenant,
    d: &Decision,
    at: OffsetDateTime,
) -> Result<[lendhub_domain::sandbox::events::Event; 2], serde_json::Error> {
    let view = DecisionView::new(d);
    let (offer, agreement) = accepted(owner, d, &view, at);
    Ok([
        event(owner, EventType::OfferAccepted, &offer, at)?,
        event(owner, EventType::AgreementSigned, &agreement, at)?,
    ])
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
    body: JsonBody<AcceptOffer>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_white_label_write(&state)?;
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let input = &body.value;
            let mut issues = Vec::new();
            let signed_by = input.signed_by.as_deref().map(str::trim).unwrap_or("");
            if signed_by.is_empty() {
                issues.push(FieldIssue::new("signed_by", "required"));
            } else if signed_by.chars().count() > MAX_NAME {
                issues.push(FieldIssue::new("signed_by", "max_length").with_bound(MAX_NAME as i64));
            }
            if input.accept_terms != Some(true) {
                issues.push(FieldIssue::new("accept_terms", "consent_required"));
            }
            if !issues.is_empty() {
                return Err(PartnerError::Validation(issues));
            }
            let application = find(&state, owner, &id).await?;
            let decision = match &application.decision_id {
                Some(d) => state.lending.hub_decision(owner, d.as_str()).await?,
                None => None,
            }
            .ok_or(PartnerError::Conflict(
                "the application has not been decided yet",
            ))?;
            let (view, writes) = sign(&state, &application, &decision, signed_by, now)?;
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}

/// Acceptance however it was given (this call, or the hosted journey's offer
/// page): the application and its locked decision with `offer.accepted` and
/// `agreement.signed`, as writes to commit together.
pub(crate) fn sign(
    state: &PartnerState,
    application: &lendhub_domain::lending::application::Application,
    decision: &Decision,
    signed_by: &str,
    now: OffsetDateTime,
) -> Result<(ApplicationView, WriteSet), PartnerError> {
    let owner = &application.owner;
    let (application, decision) = application
        .accept(decision, signed_by.to_owned(), now)
        .map_err(refused)?;
    let [accepted, signed] =
        events(owner, &decision, now).map_err(|e| PartnerError::Internal(e.to_string()))?;
    let view =
        ApplicationView::new(&application, state).with_decision(DecisionView::new(&decision));
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateApplication(application))
        .push(LendingWrite::UpdateDecision(decision))
        .push(EventWrite::InsertEvent(accepted))
        .push(EventWrite::InsertEvent(signed));
    Ok((view, writes))
}
