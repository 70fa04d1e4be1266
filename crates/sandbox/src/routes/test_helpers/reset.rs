use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::sandbox::test_clock::ClientClock;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::OptionalJsonBody;
use lendhub_store::{SandboxWrite, WriteSet};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::Writer;
use crate::error::SandboxError;
use crate::state::SandboxState;
use crate::views::ErrorEnvelope;
use lendhub_http::test_mode::TestClockView;

/// The reset request takes no members; an empty body is fine.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetSandbox {}

#[derive(Serialize, ToSchema)]
pub struct ResetView {
    #[schema(example = "sandbox_reset")]
    object: &'static str,
    /// Your clock, back on the service clock.
    clock: TestClockView,
}

/// Start again from clean: removes your applications, payments, events,
/// pending deliveries, webhook endpoints and idempotency keys (but this
/// request's), and puts your clock back. Other clients are untouched; your
/// credentials and tokens stay.
#[utoipa::path(post, operation_id = "resetSandbox", path = "/v1/test_helpers/reset", tag = "test_helpers", security(("oauth2" = ["sandbox:write"])),
    params(("Idempotency-Key" = String, Header)),
    request_body(content = Option<ResetSandbox>, description = "optional, empty"),
    responses((status = 200, body = ResetView), (status = 400, body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope)))]
pub async fn reset(
    State(state): State<SandboxState>,
    Writer(caller): Writer,
    idempotent: Idempotent,
    body: OptionalJsonBody<ResetSandbox>,
) -> Result<Response, SandboxError> {
    let guarded = idempotent.by(&caller.tenant, &body.raw, caller.now(&state));
    let response = state
        .idempotency
        .run(guarded, || async {
            let now = state.clock.now();
            let mut writes = WriteSet::default();
            writes.push(SandboxWrite::ResetOwner {
                owner: caller.tenant.clone(),
                keep_key: Some(idempotent.key.clone()),
            });
            let view = ResetView {
                object: "sandbox_reset",
                clock: TestClockView::new(ClientClock::default(), now),
            };
            // Recorded on the clock as it is after the reset.
            Ok(Prepared::json(StatusCode::OK, &view, writes)?.recorded_at(now))
        })
        .await;
    // Bearer checks here read the clock put back from now on (other
    // instances within one epoch poll).
    state.clients.forget();
    response
}
