use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::lending::bank_connection::check;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::flows::connect_bank::start;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::bank_connection::BankConnectionView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateBankConnection {
    /// The applicant's bank, one of `GET /banks`.
    #[schema(required = true, example = "model_bank")]
    bank: Option<String>,
    /// Where lendhub sends the applicant back once the bank has answered,
    /// with `bank_connection` and `status` appended: an absolute `https`
    /// URL without a fragment (`http` only on localhost). Without it the
    /// applicant ends on lendhub's page saying they may close it.
    #[schema(example = "https://partner.example/apply/bank-done")]
    return_url: Option<String>,
}

/// Connect the applicant's bank: lendhub asks the bank for access to read
/// the business account and answers the page to send the applicant to
/// (`authorisation_url`). The applicant authorises there and comes back
/// through lendhub, which reads the account and sends them on to
/// `return_url`; the connection is then `connected` (or `failed`, saying
/// why) and `POST /applications/{id}/submit` names it. Gated as the
/// submission is.
#[utoipa::path(post, operation_id = "createBankConnection", path = "/applications/{id}/bank_connections", tag = "applications",
    security(("oauth2" = ["applications.write"]), ("api_key" = [])),
    params(("id" = String, Path, description = "app_…"),
        ("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    request_body = CreateBankConnection,
    responses((status = 201, body = BankConnectionView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed"),
        (status = 401, description = "credentials"),
        (status = 403, description = "insufficient_scope, or capability_denied: white-label journeys are not switched on for this partner in live"),
        (status = 404, description = "not_found: no such application of yours"),
        (status = 409, description = "conflict: the application is no longer open"),
        (status = 422, description = "validation_failed: `bank` missing or not one of `GET /banks` (`unknown_bank`), `return_url` refused (`uri`, `https_required`, `fragment_not_allowed`, `max_length`)"),
        (status = 503, description = "service_unavailable: the bank could not be reached; retry")))]
pub async fn create(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
    body: JsonBody<CreateBankConnection>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_white_label_write(&state)?;
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let input = &body.value;
            let request = check(input.bank.as_deref(), input.return_url.as_deref())?;
            let (connection, writes) = start(&state.flows, owner, &id, request, now).await?;
            let view = BankConnectionView::new(&connection, now);
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
}
