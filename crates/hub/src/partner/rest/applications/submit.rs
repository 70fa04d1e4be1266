use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::lending::white_label::{Submission, check_submission};
use lendhub_domain::partner::credentials::Environment;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::flows::connect_bank::connected_account;
use crate::flows::decide::{decide, identity_of};
use crate::flows::lending::find;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::application::ApplicationView;

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
    /// The test environment's simulated banks, instead of a connection:
    /// test_bank_strong, test_bank_low, test_bank_thin, test_bank_closed.
    /// The live environment knows none of them.
    #[schema(example = "test_bank_strong")]
    bank: Option<String>,
    /// `bcn_…`: the applicant's bank connected with
    /// `POST /applications/{id}/bank_connections`, now `connected`. Its
    /// account is where the loan is paid and what the decision reads.
    /// Exactly one of `bank` and `bank_connection`.
    #[schema(example = "bcn_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    bank_connection: Option<String>,
    /// `ver_…` checks of the directors made with `POST /identity/checks`.
    #[serde(default)]
    identity_check_ids: Vec<String>,
}

impl SubmitApplication {
    fn submission(&self) -> Submission {
        let consents = self.consents.as_ref();
        Submission {
            credit_search: consents.and_then(|c| c.credit_search),
            open_banking: consents.and_then(|c| c.open_banking),
            terms: consents.and_then(|c| c.terms),
            bank: self.bank.clone(),
            bank_connection: self.bank_connection.clone(),
        }
    }
}

/// White-label journeys: submit an application with the applicant's
/// consents, connected bank and directors' identity checks, as the hosted
/// journey does at its end (`application.submitted`). The engine decides at
/// once (`decision.completed`): the application becomes `approved`,
/// `declined` or `in_review` (referred). In the live environment this needs
/// the operator's white-label switch; the test environment always allows it.
/// The account is a `bank_connection` the applicant authorised at their
/// bank; the test environment also takes `bank`, one of its simulated
/// banks, which a live submission may not name (`unknown_bank`).
#[utoipa::path(post, operation_id = "submitApplication", path = "/applications/{id}/submit", tag = "applications",
    security(("oauth2" = ["applications.write"]), ("api_key" = [])),
    params(("id" = String, Path, description = "app_…"),
        ("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    request_body = SubmitApplication,
    responses((status = 200, body = ApplicationView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed"),
        (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope, or capability_denied: white-label journeys are not switched on for this partner in live"),
        (status = 404, description = "not_found: the application, an identity check, or the bank connection (not this application's)"),
        (status = 409, description = "conflict: not open (already submitted, withdrawn or expired)"),
        (status = 422, description = "validation_failed: a consent not given (`consent_required`), neither `bank` nor `bank_connection` (`bank`: `required`), both (`bank_connection`: `mutually_exclusive_with_bank`), an unknown bank (in live, every test bank), a connection not `connected` (`bank_connection`: `not_connected`)"),
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
            // The bank is looked up first: whether it is known is one of
            // the rules, reported with the consents. The test banks are
            // simulations: a live decision never reads one
            // (docs/decisions.md).
            let bank = match input.bank.as_deref() {
                Some(_) if caller.env == Environment::Live => None,
                None => None,
                Some(b) => state
                    .banks
                    .summary(b)
                    .await
                    .map_err(|e| PartnerError::Unavailable(e.to_string()))?,
            };
            check_submission(&input.submission(), bank.is_some())?;
            let application = find(&state.flows, owner, &id).await?;
            let (payout, banking) = match &input.bank_connection {
                Some(raw) => {
                    let (payout, banking) =
                        connected_account(&state.flows, &application, raw).await?;
                    (payout, Some(banking))
                }
                None => (input.bank.clone().unwrap_or_default(), bank),
            };
            let identity = identity_of(&state.flows, owner, &input.identity_check_ids).await?;
            let (view, writes) = decide(
                &state.flows,
                &application,
                (&payout, banking),
                identity,
                now,
            )
            .await?;
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
