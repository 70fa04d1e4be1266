use axum::extract::State;
use axum::response::Response;
use lendhub_domain::sandbox::events::{Event, EventType};
use lendhub_domain::sandbox::synthetic;
use lendhub_domain::tenant::Tenant;
use lendhub_http::idempotency::MaybeIdempotent;
use lendhub_http::json::JsonBody;
use lendhub_http::test_mode::{self, CreateTestEvent, Refused};
use serde_json::Value;
use time::OffsetDateTime;

use super::{specimens, test_only};
use crate::flows::events::event;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;

/// The test environment as a source of events on demand: the tier's whole
/// vocabulary, the object a real event of the type carries as the default,
/// the tier's envelope (`livemode: false`).
struct TestEnvironment<'a> {
    state: &'a PartnerState,
    owner: &'a Tenant,
    now: OffsetDateTime,
}

impl test_mode::EventSource for TestEnvironment<'_> {
    fn event_type(&self, raw: &str) -> Option<EventType> {
        EventType::parse(raw)
    }

    fn object(&self, t: EventType, data: Option<&Value>) -> Result<Value, Refused> {
        let random = u128::from_le_bytes(lendhub_system::random_bytes());
        let default = specimens::object(self.state, self.owner, t, self.now, random)
            .map_err(Refused::Internal)?;
        synthetic::build_hub_object(t, default, data).map_err(test_mode::data_invalid)
    }

    fn publish(&self, t: EventType, object: &Value) -> Result<Event, Refused> {
        event(self.owner, t, object, self.now).map_err(|e| Refused::Internal(e.to_string()))
    }
}

/// Create a synthetic event of any type in the webhook event catalogue,
/// owned by this test environment. Its `data.object` is the object a real
/// event of the type carries, every member present, for a synthetic loan
/// of company 00000401 (£10,000 over 24 months, reference `TEST-EVENT`)
/// whose ids name nothing you can retrieve, with your overrides merged in
/// member by member (`object` and the id's prefix stay the type's). It is
/// listed, delivered, signed and replayable like any other event.
#[utoipa::path(post, operation_id = "createTestEvent", path = "/test_helpers/events", tag = "test_helpers",
    security(("api_key" = []), ("oauth2" = [])),
    params(("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    request_body = CreateTestEvent,
    responses((status = 201, description = "the event as stored: `{id: evt_…, object: event, type, api_version, created_at, livemode: false, data: {object}}`"),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed"),
        (status = 401, description = "credentials"), (status = 403, description = "capability_denied: live credentials"),
        (status = 409, description = "idempotency_key_reused or idempotency_key_in_progress"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed, test_event_type_unknown or test_event_data_invalid")))]
pub async fn create(
    State(state): State<PartnerState>,
    caller: RestCaller,
    MaybeIdempotent(key): MaybeIdempotent,
    body: JsonBody<CreateTestEvent>,
) -> Result<Response, PartnerError> {
    test_only(&caller)?;
    let write = caller.start_write(&state);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let source = TestEnvironment {
                state: &state,
                owner: &write.owner,
                now: write.now,
            };
            Ok(test_mode::create_event(&source, &body.value)?)
        })
        .await
}
