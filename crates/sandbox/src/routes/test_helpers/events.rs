use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::events::{EventType, ObjectKind};
use lendhub_domain::synthetic::{self, Sample};
use lendhub_http::FieldIssue;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use lendhub_store::{EventWrite, WriteSet};
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::auth::Writer;
use crate::error::SandboxError;
use crate::event_log::event;
use crate::routes::events::EventJson;
use crate::state::SandboxState;
use crate::views::{
    ApplicationView, DecisionView, ErrorEnvelope, PaymentView, WebhookEndpointView,
};
use lendhub_domain::tenant::Tenant;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTestEvent {
    /// Any type the sandbox emits (see `event_types` in `GET /v1/fixtures`).
    #[serde(rename = "type")]
    #[schema(required = true, example = "payment.failed")]
    kind: Option<String>,
    /// Overrides, shaped like the event's `data`: `{"object": {…}}`. Objects
    /// merge member by member; anything else replaces the default.
    #[schema(value_type = Option<Object>, required = false, example = json!({"object": {"amount_pence": 4002, "failure_reason": "payer_cancelled"}}))]
    data: Option<serde_json::Value>,
}

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
        (ObjectKind::Decision, Sample::Application(a)) => {
            serde_json::to_value(DecisionView::from(&**a))
        }
        (_, Sample::Application(a)) => serde_json::to_value(ApplicationView::from(&**a)),
        (_, Sample::Payment(p)) => serde_json::to_value(PaymentView::from(p)),
        (_, Sample::Endpoint(e)) => serde_json::to_value(WebhookEndpointView::new(e, None)),
    };
    value.map_err(|e| SandboxError::Internal(e.to_string()))
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
            let kind = body.value.kind.as_deref().ok_or_else(|| {
                SandboxError::Validation(vec![FieldIssue::new("type", "required")])
            })?;
            let t = EventType::parse(kind).ok_or(SandboxError::TestEventTypeUnknown)?;
            let default = default_object(t, &caller.tenant, now)?;
            let object =
                synthetic::build_object(t.object_kind(), default, body.value.data.as_ref())
                    .map_err(|issues| {
                        SandboxError::TestEventDataInvalid(
                            issues
                                .into_iter()
                                .map(|i| FieldIssue::new(i.field, i.reason))
                                .collect(),
                        )
                    })?;
            let stored = event(&caller.tenant, t, &object, now)?;
            let rendered = stored.body.clone().into_bytes();
            let mut writes = WriteSet::default();
            writes.push(EventWrite::InsertEvent(stored));
            Ok(Prepared::raw(StatusCode::CREATED, rendered, writes))
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
        for t in EventType::ALL {
            let default = default_object(t, &Tenant::sandbox_client("pk_test_a"), now).unwrap();
            let mut issues = Vec::new();
            synthetic::check(
                synthetic::shape_of(t.object_kind()),
                &default,
                "data.object",
                &mut issues,
            );
            assert!(issues.is_empty(), "{t:?}: {issues:?}");
        }
    }
}
