use axum::extract::State;
use axum::response::Response;
use lendhub_domain::sandbox::events::Event;
use lendhub_domain::sandbox::events::{EventType, ObjectKind};
use lendhub_domain::sandbox::synthetic::{self, Sample};
use lendhub_http::idempotency::Idempotent;
use lendhub_http::json::JsonBody;
use lendhub_http::test_mode::{self, CreateTestEvent, Refused};
use time::OffsetDateTime;

use crate::auth::Writer;
use crate::error::SandboxError;
use crate::event_log::event;
use crate::routes::events::EventJson;
use crate::state::SandboxState;
use crate::views::{
    ApplicationView, DecisionView, ErrorEnvelope, PaymentView, WebhookEndpointView,
};
use lendhub_domain::tenant::Tenant;

/// The default `data.object` of an event of type `t`, rendered as the
/// sandbox renders that object.
fn default_object(
    t: EventType,
    owner: &Tenant,
    now: OffsetDateTime,
) -> Result<serde_json::Value, SandboxError> {
    let sample = synthetic::sample(
        t,
        owner,
        now,
        u128::from_le_bytes(lendhub_system::random_bytes()),
    )
    .map_err(|e| SandboxError::Internal(e.to_string()))?;
    let value = match (t.object_kind(), &sample) {
        (Some(ObjectKind::Decision), Sample::Application(a)) => {
            serde_json::to_value(DecisionView::from(&**a))
        }
        (_, Sample::Application(a)) => serde_json::to_value(ApplicationView::from(&**a)),
        (_, Sample::Payment(p)) => serde_json::to_value(PaymentView::from(p)),
        (_, Sample::Endpoint(e)) => serde_json::to_value(WebhookEndpointView::new(e, None)),
    };
    value.map_err(|e| SandboxError::Internal(e.to_string()))
}

/// The sandbox as a source of events on demand: its nine types, defaults
/// rendered from the fixtures as the sandbox renders them, its envelope.
struct Sandbox<'a> {
    owner: &'a Tenant,
    now: OffsetDateTime,
}

impl test_mode::EventSource for Sandbox<'_> {
    fn event_type(&self, raw: &str) -> Option<EventType> {
        EventType::sandbox(raw)
    }

    fn object(
        &self,
        t: EventType,
        data: Option<&serde_json::Value>,
    ) -> Result<serde_json::Value, Refused> {
        let shape = t
            .object_kind()
            .map(synthetic::shape_of)
            .ok_or_else(|| Refused::Internal(format!("{t:?} is not a sandbox event")))?;
        let default = default_object(t, self.owner, self.now)
            .map_err(|e| Refused::Internal(format!("{e:?}")))?;
        synthetic::build_object(shape, default, data).map_err(test_mode::data_invalid)
    }

    fn publish(&self, t: EventType, object: &serde_json::Value) -> Result<Event, Refused> {
        event(self.owner, t, object, self.now).map_err(|e| Refused::Internal(format!("{e:?}")))
    }
}

/// Create a synthetic event of any type the sandbox emits, owned by you: its
/// `data.object` is the fixtures' default with your overrides merged in. It is
/// listed, delivered, signed and replayable like any other event.
#[utoipa::path(post, operation_id = "createTestEvent", path = "/v1/test_helpers/events", tag = "test_helpers", security(("oauth2" = ["sandbox:write"])),
    params(("Idempotency-Key" = String, Header)),
    request_body = CreateTestEvent,
    responses((status = 201, body = EventJson), (status = 400, body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope),
        (status = 422, description = "validation_failed, test_event_type_unknown or test_event_data_invalid", body = ErrorEnvelope)))]
pub async fn create(
    State(state): State<SandboxState>,
    Writer(caller): Writer,
    idempotent: Idempotent,
    body: JsonBody<CreateTestEvent>,
) -> Result<Response, SandboxError> {
    let now = caller.now(&state);
    let guarded = idempotent.by(&caller.tenant, &body.raw, now);
    state
        .idempotency
        .run(guarded, || async {
            let source = Sandbox {
                owner: &caller.tenant,
                now,
            };
            Ok(test_mode::create_event(&source, &body.value)?)
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The domain's shapes and the sandbox's views describe the same JSON:
    /// every default renders to a value its shape accepts in full.
    #[test]
    fn every_default_fits_its_shape() {
        let now = OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000);
        for t in EventType::SANDBOX {
            let default = default_object(t, &Tenant::sandbox_client("pk_test_a"), now).unwrap();
            let mut issues = Vec::new();
            synthetic::check(
                synthetic::shape_of(t.object_kind().unwrap()),
                &default,
                "data.object",
                &mut issues,
            );
            assert!(issues.is_empty(), "{t:?}: {issues:?}");
        }
    }
}
