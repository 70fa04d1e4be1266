use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::test_clock::{Advance, AdvanceError, ClientClock, advance as advance_clock};
use lendhub_http::FieldIssue;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use lendhub_store::{SandboxWrite, WriteSet};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::auth::{Reader, Writer};
use crate::error::SandboxError;
use crate::state::SandboxState;
use crate::views::{ErrorEnvelope, rfc3339};

/// A client's test clock.
#[derive(Serialize, ToSchema)]
pub struct TestClockView {
    #[schema(example = "test_clock")]
    object: &'static str,
    /// Now on this client's clock (RFC 3339). It keeps running with real
    /// time; advancing adds to its offset.
    now: String,
    /// How far this client's clock is ahead of the service clock, in milliseconds.
    offset_ms: i64,
}

impl TestClockView {
    pub fn new(clock: ClientClock, now: OffsetDateTime) -> Self {
        Self {
            object: "test_clock",
            now: rfc3339(now),
            offset_ms: clock.offset_ms(),
        }
    }
}

/// Your test clock.
#[utoipa::path(get, operation_id = "getTestClock", path = "/v1/test_helpers/clock", tag = "test_helpers", security(("oauth2" = ["sandbox:read"])),
    responses((status = 200, body = TestClockView), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
pub async fn get(
    State(state): State<SandboxState>,
    Reader(caller): Reader,
) -> Result<Json<TestClockView>, SandboxError> {
    Ok(Json(TestClockView::new(caller.clock, caller.now(&state))))
}

/// Exactly one of `seconds` and `to`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdvanceTestClock {
    /// Move forward by this many seconds: 0 to 34560000 (400 days).
    #[schema(minimum = 0, maximum = 34560000, example = 60)]
    seconds: Option<i64>,
    /// Move forward to this instant (RFC 3339), at most 400 days ahead.
    #[schema(example = "2026-12-24T09:00:00Z")]
    to: Option<String>,
}

fn refused(e: AdvanceError, field: &'static str) -> SandboxError {
    match e {
        AdvanceError::Backwards { now } => SandboxError::TestClockBackwards {
            field,
            message: format!(
                "the test clock only moves forward; it reads {}",
                rfc3339(now)
            ),
        },
        AdvanceError::TooFar => SandboxError::TestClockAdvanceTooLarge { field },
    }
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
            let request = Advance::from_fields(body.value.seconds, body.value.to.as_deref())
                .map_err(|p| SandboxError::Validation(vec![FieldIssue::new(p.field, p.reason)]))?;
            let moved = advance_clock(caller.clock, now, request)
                .map_err(|e| refused(e, request.field()))?;
            let moved_now =
                now + time::Duration::milliseconds(moved.offset_ms() - caller.clock.offset_ms());
            let mut writes = WriteSet::default();
            writes.push(SandboxWrite::SetClock {
                owner: caller.tenant.clone(),
                from_offset_ms: caller.clock.offset_ms(),
                to_offset_ms: moved.offset_ms(),
            });
            Ok(Prepared::json(
                StatusCode::OK,
                &TestClockView::new(moved, moved_now),
                writes,
            )?
            .recorded_at(moved_now))
        })
        .await?;
    // What fell due happens now: reviews before the answer (so a read after
    // it sees them settled), deliveries as soon as the worker wakes.
    if let Err(e) = crate::referrals::settle_due(&state, Some(&caller.tenant)).await {
        tracing::warn!(error = ?e, "settling due referrals after an advance; the worker will retry");
    }
    state.referrals_wake.notify_one();
    state.outbox_wake.notify_one();
    Ok(response)
}
