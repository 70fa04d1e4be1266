use axum::Json;
use axum::extract::State;
use axum::response::Response;
use lendhub_http::idempotency::MaybeIdempotent;
use lendhub_http::json::JsonBody;
use lendhub_http::test_mode::{self, AdvanceTestClock, TestClockView};

use super::test_only;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;

/// The test environment's clock. Everything time-driven in it reads this
/// clock: webhook retries and the disabling of a failing endpoint,
/// idempotency-key expiry, event retention, and the timestamps of what it
/// creates.
#[utoipa::path(get, operation_id = "getTestClock", path = "/test_helpers/clock", tag = "test_helpers",
    security(("api_key" = []), ("oauth2" = [])),
    responses((status = 200, body = TestClockView), (status = 401, description = "credentials"),
        (status = 403, description = "capability_denied: live credentials")))]
pub async fn get(
    State(state): State<PartnerState>,
    caller: RestCaller,
) -> Result<Json<TestClockView>, PartnerError> {
    test_only(&caller)?;
    Ok(Json(TestClockView::new(caller.clock, caller.now(&state))))
}

/// Move the test environment's clock forward (never back; at most 400 days
/// a call). Deliveries that fall due are made at once.
#[utoipa::path(post, operation_id = "advanceTestClock", path = "/test_helpers/clock/advance", tag = "test_helpers",
    security(("api_key" = []), ("oauth2" = [])),
    params(("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    request_body = AdvanceTestClock,
    responses((status = 200, body = TestClockView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed"),
        (status = 401, description = "credentials"), (status = 403, description = "capability_denied: live credentials"),
        (status = 409, description = "conflict: the clock moved concurrently; read it and retry"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed, test_clock_backwards or test_clock_advance_too_large")))]
pub async fn advance(
    State(state): State<PartnerState>,
    caller: RestCaller,
    MaybeIdempotent(key): MaybeIdempotent,
    body: JsonBody<AdvanceTestClock>,
) -> Result<Response, PartnerError> {
    test_only(&caller)?;
    let write = caller.start_write(&state);
    let response = state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            Ok(test_mode::advance(
                &write.owner,
                caller.clock,
                write.now,
                &body.value,
            )?)
        })
        .await
        .map_err(|e| match e {
            PartnerError::Conflict(_) => {
                PartnerError::Conflict("the test clock moved concurrently; read it and retry")
            }
            e => e,
        })?;
    state.outbox_wake.notify_one();
    state.expiry_wake.notify_one();
    Ok(response)
}
