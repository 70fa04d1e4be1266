use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::ids::{DecisionId, HubId, VerificationId};
use lendhub_domain::lending::application::{Application, CannotSubmit};
use lendhub_domain::lending::kyc;
use lendhub_domain::lending::underwriting::{Banking, Facts};
use lendhub_domain::marketplace;
use lendhub_domain::sandbox::events::EventType;
use lendhub_http::FieldIssue;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::JsonBody;
use lendhub_store::{EventWrite, LendingWrite, WriteSet};
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::{ApplicationView, find};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::decisions::DecisionView;
use crate::partner::rest::decisions::change::company_and_credit;
use crate::partner::rest::events::event;
use crate::partner::state::PartnerState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Consents {
    /// A search of the company's credit file.
    #[schema(required = true, schema_with = crate::partner::rest::schemas::must_be_true)]
    credit_search: Option<bool>,
    /// Reading the connected account through open banking.
    #[schema(required = true, schema_with = crate::partner::rest::schemas::must_be_true)]
    open_banking: Option<bool>,
    /// The terms of the application.
    #[schema(required = true, schema_with = crate::partner::rest::schemas::must_be_true)]
    terms: Option<bool>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitApplication {
    /// Each must be `true`: the applicant's consents, as collected by your
    /// white-label journey.
    #[schema(required = true)]
    consents: Option<Consents>,
    /// The bank the applicant connected, where the loan is paid (test
    /// banks: test_bank_strong, test_bank_low, test_bank_thin,
    /// test_bank_closed).
    #[schema(required = true, example = "test_bank_strong")]
    bank: Option<String>,
    /// `ver_…` checks of the directors made with `POST /identity/checks`.
    #[serde(default)]
    identity_check_ids: Vec<String>,
}

fn refused(e: CannotSubmit) -> PartnerError {
    PartnerError::Conflict(match e.0 {
        lendhub_domain::lending::application::Status::Expired => "the application has expired",
        lendhub_domain::lending::application::Status::Withdrawn => "the application was withdrawn",
        _ => "the application was already submitted",
    })
}

/// White-label journeys: submit an application with the applicant's
/// consents, connected bank and directors' identity checks, as the hosted
/// journey does at its end (`application.submitted`). The engine decides at
/// once (`decision.completed`): the application becomes `approved`,
/// `declined` or `in_review` (referred). In the live environment this needs
/// the operator's white-label switch; the test environment always allows it.
#[utoipa::path(post, operation_id = "submitApplication", path = "/applications/{id}/submit", tag = "applications",
    security(("oauth2" = ["applications.write"]), ("api_key" = [])),
    params(("id" = String, Path, description = "app_…"),
        ("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    request_body = SubmitApplication,
    responses((status = 200, body = ApplicationView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed"),
        (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope, or capability_denied: white-label journeys are not switched on for this partner in live"),
        (status = 404, description = "not_found: the application or an identity check"),
        (status = 409, description = "conflict: not open (already submitted, withdrawn or expired)"),
        (status = 422, description = "validation_failed: a consent not given (`consent_required`), an unknown bank"),
        (status = 503, description = "service_unavailable: the bank or the credit bureau could not be reached")))]
pub async fn submit(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
    body: JsonBody<SubmitApplication>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_white_label_write(&state)?;
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let input = &body.value;
            let consents = input.consents.as_ref();
            let mut issues = Vec::new();
            for (field, given) in [
                (
                    "consents.credit_search",
                    consents.and_then(|c| c.credit_search),
                ),
                (
                    "consents.open_banking",
                    consents.and_then(|c| c.open_banking),
                ),
                ("consents.terms", consents.and_then(|c| c.terms)),
            ] {
                if given != Some(true) {
                    issues.push(FieldIssue::new(field, "consent_required"));
                }
            }
            let bank = match input.bank.as_deref() {
                None => {
                    issues.push(FieldIssue::new("bank", "required"));
                    None
                }
                Some(b) => state
                    .banks
                    .summary(b)
                    .await
                    .map_err(|e| PartnerError::Unavailable(e.to_string()))?
                    .or_else(|| {
                        issues.push(FieldIssue::new("bank", "unknown_bank"));
                        None
                    }),
            };
            if !issues.is_empty() {
                return Err(PartnerError::Validation(issues));
            }
            let application = find(&state, owner, &id).await?;
            let mut identity = None;
            for check_id in &input.identity_check_ids {
                let missing = PartnerError::NotFound("identity check");
                if VerificationId::parse(check_id).is_none() {
                    return Err(missing);
                }
                let v = state
                    .lending
                    .verification(owner, check_id)
                    .await?
                    .ok_or(missing)?;
                // The worst check decides.
                if identity != Some(kyc::Status::ReviewRequired) {
                    identity = Some(v.status);
                }
            }
            let payout = input.bank.as_deref().unwrap_or_default();
            let (view, writes) =
                decide(&state, &application, (payout, bank), identity, now).await?;
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}

/// Submission however the applicant's answers were collected (this call, or
/// the hosted journey's last step): `application.submitted`, the engine's
/// decision and `decision.completed`, as writes to commit together.
pub(crate) async fn decide(
    state: &PartnerState,
    application: &Application,
    (payout_bank, banking): (&str, Option<Banking>),
    identity: Option<kyc::Status>,
    now: OffsetDateTime,
) -> Result<(ApplicationView, WriteSet), PartnerError> {
    let owner = &application.owner;
    let (company, credit) = company_and_credit(state, application).await?;
    // Signals commit over the application's version, as this submission
    // does: none can arrive between this read and the decision unweighed.
    let signals = state
        .commercial
        .signals(owner, application.id.as_str())
        .await?;
    let facts = Facts::new(
        &company,
        application.amount.as_pence(),
        application.term_months,
        credit,
        banking,
        identity,
        marketplace::weigh(&signals),
    );
    let decision_id: DecisionId =
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let (submitted, mut decided, decision) = application
        .submit(decision_id, facts, now)
        .map_err(refused)?;
    decided.payout_bank = Some(payout_bank.to_owned());
    let render = |e: serde_json::Error| PartnerError::Internal(e.to_string());
    let submitted_event = event(
        owner,
        EventType::ApplicationSubmitted,
        &ApplicationView::new(&submitted, state),
        now,
    )
    .map_err(render)?;
    let decision_view = DecisionView::new(&decision);
    let decided_event =
        event(owner, EventType::DecisionCompleted, &decision_view, now).map_err(render)?;
    let view = ApplicationView::new(&decided, state).with_decision(DecisionView::new(&decision));
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateApplication(decided))
        .push(LendingWrite::InsertDecision(decision))
        .push(EventWrite::InsertEvent(submitted_event))
        .push(EventWrite::InsertEvent(decided_event));
    Ok((view, writes))
}
