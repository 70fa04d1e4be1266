use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::servicing::schedule_request::{self, ScheduleRequest};
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::flows::schedules::create as create_schedule;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::schedule::ScheduleView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSchedule {
    #[schema(
        required = true,
        pattern = "^acc_[0-7][0-9A-HJKMNP-TV-Z]{25}$",
        example = "acc_01KQ3V1Y2C8WZ3R5T6Y7X819D0"
    )]
    account_id: Option<String>,
    /// Per instalment: integer pence, from 1 to 50,000,000 (£500,000).
    #[schema(required = true, value_type = i64, minimum = 1, maximum = 50_000_000, example = 46589)]
    amount_pence: Option<Value>,
    /// weekly or monthly.
    #[schema(required = true, pattern = "^(weekly|monthly)$", example = "monthly")]
    cadence: Option<String>,
    /// The first due date, YYYY-MM-DD, today or later on your clock.
    /// Monthly instalments keep its day (or the month's last day when it
    /// has fewer).
    #[schema(required = true, format = Date, example = "2027-01-26")]
    start_date: Option<String>,
    /// Instalments in all, 1 to 520; omitted means open-ended.
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 520, example = 12)]
    count: Option<Value>,
    /// An active mandate (`mnd_…`) of the same account; if absent, the
    /// payer's first authorisation establishes one.
    #[schema(pattern = "^mnd_[0-7][0-9A-HJKMNP-TV-Z]{25}$")]
    mandate_id: Option<String>,
}

impl CreateSchedule {
    fn request(&self) -> ScheduleRequest {
        ScheduleRequest {
            account_id: self.account_id.clone(),
            amount_pence: self.amount_pence.clone(),
            cadence: self.cadence.clone(),
            start_date: self.start_date.clone(),
            count: self.count.clone(),
            mandate_id: self.mandate_id.clone(),
        }
    }
}

/// Collect from one of your accounts weekly or monthly: 201 with the
/// schedule, `active`. On each due date (on your clock) an instalment is
/// initiated as a child payment: under the mandate at once, or, before one
/// exists, as a link (`payment.created` carries its `url`) whose
/// authorisation on the pay page establishes the mandate. The final
/// instalment of a fixed schedule sweeps any rounding remainder;
/// `schedule.completed` when it settles.
#[utoipa::path(post, operation_id = "createPaymentSchedule", path = "/payments/schedules", tag = "payments",
    security(("oauth2" = ["payments.write"]), ("api_key" = [])),
    params(("Idempotency-Key" = String, Header, description = "required; 8 to 128 characters")),
    request_body = CreateSchedule,
    responses((status = 201, body = ScheduleView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed (also when the required key is missing)"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such account or mandate of yours in this environment"),
        (status = 409, description = "conflict: the account is settled or closed, or the mandate was revoked; idempotency_key_reused or idempotency_key_in_progress"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed (detail names each field)")))]
pub async fn create(
    State(state): State<PartnerState>,
    caller: RestCaller,
    key: Idempotent,
    body: JsonBody<CreateSchedule>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::PaymentsWrite)?;
    let key = Some(key);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let checked = schedule_request::check(&body.value.request(), write.now.date())?;
            let (view, writes) =
                create_schedule(&state.flows, &write.owner, checked, write.now).await?;
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
}
