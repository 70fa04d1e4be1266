use axum::Json;
use axum::extract::State;
use axum::response::Response;
use lendhub_http::idempotency::Idempotent;
use lendhub_http::json::JsonBody;
use lendhub_http::test_mode::{self, AdvanceTestClock, TestClockView};

use crate::auth::{Reader, Writer};
use crate::error::SandboxError;
use crate::state::SandboxState;
use crate::views::ErrorEnvelope;

/// Your test clock.
#[utoipa::path(get, operation_id = "getTestClock", path = "/v1/test_helpers/clock", tag = "test_helpers", security(("oauth2" = ["sandbox:read"])),
    responses((status = 200, body = TestClockView), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
pub async fn get(
    State(state): State<SandboxState>,
    Reader(caller): Reader,
) -> Result<Json<TestClockView>, SandboxError> {
    Ok(Json(TestClockView::new(caller.clock, caller.now(&state))))
}

/// Move your test clock forward. Webhook retries, offer expiry,
/// idempotency-key expiry and referral reviews that fall due run at once;
/// due reviews are settled before this answers.
#[utoipa::path(post, operation_id = "advanceTestClock", path = "/v1/test_helpers/clock/advance", tag = "test_helpers", security(("oauth2" = ["sandbox:write"])),
    params(("Idempotency-Key" = String, Header)),
    request_body = AdvanceTestClock,
    responses((status = 200, body = TestClockView), (status = 400, body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 409, description = "the clock moved concurrently; retry", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope),
        (status = 422, description = "validation_failed, test_clock_backwards or test_clock_advance_too_large", body = ErrorEnvelope)))]
pub async fn advance(
    State(state): State<SandboxState>,
    Writer(caller): Writer,
    idempotent: Idempotent,
    body: JsonBody<AdvanceTestClock>,
) -> Result<Response, SandboxError> {
    let now = caller.now(&state);
    let guarded = idempotent.by(&caller.tenant, &body.raw, now);
    let response = state
        .idempotency
        .run(guarded, || async {
            Ok(test_mode::advance(
                &caller.tenant,
                caller.clock,
                now,
                &body.value,
            )?)
        })
        .await?;
    // Bearer checks here read the moved clock from now on (other instances
    // within one epoch poll).
    state.clients.forget();
    // What fell due happens now: reviews before the answer (so a read after
    // it sees them settled), deliveries as soon as the worker wakes.
    if let Err(e) = crate::referrals::settle_due(&state, Some(&caller.tenant)).await {
        tracing::warn!(error = ?e, "settling due referrals after an advance; the worker will retry");
    }
    state.referrals_wake.notify_one();
    state.outbox_wake.notify_one();
    Ok(response)
}
