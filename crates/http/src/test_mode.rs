//! The test-mode helpers both surfaces serve — the caller's test clock and
//! events on demand — in one implementation: the sandbox's
//! `/v1/test_helpers/…` and the REST tier's `/sandbox/v1/test_helpers/…`
//! differ only in whose clock it is, which event types exist and what a
//! default `data.object` looks like, and each surface passes those in.

use axum::http::StatusCode;
use lendhub_domain::sandbox::events::{Event, EventType};
use lendhub_domain::sandbox::synthetic::Issue;
use lendhub_domain::sandbox::test_clock::{self, Advance, AdvanceError, ClientClock, MAX_ADVANCE};
use lendhub_domain::tenant::Tenant;
use lendhub_store::{EventWrite, SandboxWrite, WriteSet};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use utoipa::ToSchema;

use crate::idempotency::{Fault, Prepared};
use crate::problem::{FieldIssue, Problem};

/// A test-mode request refused: bad fields (each surface's
/// `validation_failed`), or a refusal with its own code, already rendered.
#[derive(Debug)]
pub enum Refused {
    Invalid(Vec<FieldIssue>),
    Coded(Problem),
    Internal(String),
}

impl From<Fault> for Refused {
    fn from(f: Fault) -> Self {
        Refused::Internal(f.0)
    }
}

/// A caller's test clock.
#[derive(Serialize, ToSchema)]
pub struct TestClockView {
    #[schema(example = "test_clock")]
    object: &'static str,
    /// Now on this caller's clock (RFC 3339). It keeps running with real
    /// time; advancing adds to its offset.
    now: String,
    /// How far this caller's clock is ahead of the service clock, in milliseconds.
    offset_ms: i64,
}

impl TestClockView {
    pub fn new(clock: ClientClock, now: OffsetDateTime) -> Self {
        Self {
            object: "test_clock",
            now: now.format(&Rfc3339).unwrap_or_default(),
            offset_ms: clock.offset_ms(),
        }
    }
}

/// Exactly one of `seconds` and `to`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdvanceTestClock {
    /// Move forward by this many seconds: 0 to 34560000 (400 days).
    #[schema(minimum = 0, maximum = 34560000, example = 60)]
    seconds: Option<i64>,
    /// Move forward to this instant (RFC 3339), at most 400 days ahead.
    #[schema(format = DateTime, example = "2026-12-24T09:00:00Z")]
    to: Option<String>,
}

fn refused(e: AdvanceError, field: &'static str) -> Refused {
    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
    Refused::Coded(match e {
        AdvanceError::Backwards { now } => Problem::new(
            unprocessable,
            "test_clock_backwards",
            format!(
                "the test clock only moves forward; it reads {}",
                now.format(&Rfc3339).unwrap_or_default()
            ),
        )
        .with_detail(vec![FieldIssue::new(field, "backwards")]),
        AdvanceError::TooFar => Problem::new(
            unprocessable,
            "test_clock_advance_too_large",
            "one advance may move the test clock at most 400 days (34560000 seconds)",
        )
        .with_detail(vec![
            FieldIssue::new(field, "max_value").with_bound(MAX_ADVANCE.whole_seconds()),
        ]),
    })
}

/// The advance `owner` asks for in `body`, its clock `clock` reading `now`:
/// the clock's move (which commits only if no other advance moved it first)
/// and the answer, recorded on the moved clock.
pub fn advance(
    owner: &Tenant,
    clock: ClientClock,
    now: OffsetDateTime,
    body: &AdvanceTestClock,
) -> Result<Prepared, Refused> {
    let request = Advance::from_fields(body.seconds, body.to.as_deref())
        .map_err(|p| Refused::Invalid(vec![FieldIssue::new(p.field, p.reason)]))?;
    let moved =
        test_clock::advance(clock, now, request).map_err(|e| refused(e, request.field()))?;
    let moved_now = now + time::Duration::milliseconds(moved.offset_ms() - clock.offset_ms());
    let mut writes = WriteSet::default();
    writes.push(SandboxWrite::SetClock {
        owner: owner.clone(),
        from_offset_ms: clock.offset_ms(),
        to_offset_ms: moved.offset_ms(),
    });
    Ok(Prepared::json(
        StatusCode::OK,
        &TestClockView::new(moved, moved_now),
        writes,
    )?
    .recorded_at(moved_now))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTestEvent {
    /// Any type this environment emits: the sandbox lists its own as
    /// `event_types` in `GET /v1/fixtures`; the REST tier takes any type of
    /// its webhook event catalogue.
    #[serde(rename = "type")]
    #[schema(required = true, example = "payment.failed")]
    kind: Option<String>,
    /// Overrides, shaped like the event's `data`: `{"object": {…}}`. Objects
    /// merge member by member; anything else replaces the default.
    #[schema(value_type = Option<Object>, required = false, example = json!({"object": {"amount_pence": 4002, "failure_reason": "payer_cancelled"}}))]
    data: Option<Value>,
}

/// How one environment makes events on demand.
pub trait EventSource {
    /// The event type `raw` names, if this environment emits it.
    fn event_type(&self, raw: &str) -> Option<EventType>;
    /// The default `data.object` of type `t` with the caller's `data`
    /// merged in, or what is wrong with the overrides.
    fn object(&self, t: EventType, data: Option<&Value>) -> Result<Value, Refused>;
    /// The event, in this environment's envelope.
    fn publish(&self, t: EventType, object: &Value) -> Result<Event, Refused>;
}

/// The overrides' issues as the answer's detail.
pub fn data_invalid(issues: Vec<Issue>) -> Refused {
    let fields = issues
        .iter()
        .map(|i| format!("{} ({})", i.field, i.reason))
        .collect::<Vec<_>>()
        .join(", ");
    Refused::Coded(
        Problem::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "test_event_data_invalid",
            format!("the overrides do not fit the event's data.object: {fields}"),
        )
        .with_detail(
            issues
                .into_iter()
                .map(|i| FieldIssue::new(i.field, i.reason))
                .collect(),
        ),
    )
}

/// A synthetic event as `body` asks, from `source`: stored (and so listed,
/// delivered, signed and replayable) like any other; the answer is the
/// event as stored.
pub fn create_event(
    source: &impl EventSource,
    body: &CreateTestEvent,
) -> Result<Prepared, Refused> {
    let kind = body
        .kind
        .as_deref()
        .ok_or_else(|| Refused::Invalid(vec![FieldIssue::new("type", "required")]))?;
    let t = source.event_type(kind).ok_or_else(|| {
        Refused::Coded(
            Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "test_event_type_unknown",
                "type names no event type this environment emits (the sandbox lists them in \
                 GET /v1/fixtures; the REST tier's are its webhook event catalogue)",
            )
            .with_detail(vec![FieldIssue::new("type", "unknown_event_type")]),
        )
    })?;
    let object = source.object(t, body.data.as_ref())?;
    let stored = source.publish(t, &object)?;
    let rendered = stored.body.clone().into_bytes();
    let mut writes = WriteSet::default();
    writes.push(EventWrite::InsertEvent(stored));
    Ok(Prepared::raw(StatusCode::CREATED, rendered, writes))
}
