use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::sandbox::ids::{EventId, PublishedId, kind};
use lendhub_http::FieldIssue;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::OptionalJsonBody;
use lendhub_http::list;
use lendhub_store::{EventPage, EventQuery, WriteSet};
use lendhub_webhooks::SECRET_PURPOSE;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::ToSchema;

use crate::auth::{Reader, Writer};
use crate::error::SandboxError;
use crate::path_id::PathId;
use crate::state::SandboxState;
use crate::views::ErrorEnvelope;

/// An event: `{id, object: "event", type, api_version, created_at, livemode, data: {object}}`.
#[derive(Serialize, ToSchema)]
#[schema(value_type = Object)]
pub struct EventJson(Box<RawValue>);

/// The shape `list` returns; the body itself is the shared envelope
/// around the stored event documents, joined as they are: they were
/// rendered by us when committed, so re-parsing them to re-encode the same
/// bytes would only cost time.
#[derive(Serialize, ToSchema)]
pub struct EventList {
    #[schema(example = "list")]
    object: &'static str,
    /// Newest first.
    data: Vec<EventJson>,
    has_more: bool,
    #[schema(example = "/v1/events")]
    url: &'static str,
    /// The cursor that continues the way you are paging (`starting_after`
    /// older, `ending_before` newer); null at the end.
    next_cursor: Option<String>,
}

fn parse_query(raw: Option<&str>) -> Result<EventQuery, SandboxError> {
    let request = list::parse(raw, list::DEFAULT_LIMIT, &["type", "created_after"])
        .map_err(SandboxError::Validation)?;
    let mut issues = Vec::new();
    if let Some(t) = request.filter("type")
        && EventType::sandbox(t).is_none()
    {
        issues.push(FieldIssue::new("type", "unknown_event_type"));
    }
    let created_after_ms = request.created_after_ms().unwrap_or_else(|issue| {
        issues.push(issue);
        None
    });
    if !issues.is_empty() {
        return Err(SandboxError::Validation(issues));
    }
    Ok(EventQuery {
        event_type: request.filter("type").map(str::to_owned),
        created_after_ms,
        page: request.page,
    })
}

/// List your events, newest first.
#[utoipa::path(get, operation_id = "listEvents", path = "/v1/events", tag = "events", security(("oauth2" = ["sandbox:read"])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query, description = "an event id: page toward older events"),
        ("ending_before" = Option<String>, Query, description = "an event id: page toward newer events"),
        ("type" = Option<String>, Query, description = "only events of this type"),
        ("created_after" = Option<String>, Query, format = DateTime, description = "RFC 3339: only events created after this moment")),
    responses((status = 200, body = EventList), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "cursor names no event of yours", body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
pub async fn list(
    State(state): State<SandboxState>,
    Reader(caller): Reader,
    RawQuery(query): RawQuery,
) -> Result<Response, SandboxError> {
    let q = parse_query(query.as_deref())?;
    for cursor in [&q.page.starting_after, &q.page.ending_before]
        .into_iter()
        .flatten()
    {
        if EventId::parse(cursor).is_none() {
            return Err(SandboxError::NotFound("event for the cursor"));
        }
    }
    // The newest page, unfiltered, is what pollers ask for again and again.
    let newest = q.page.starting_after.is_none()
        && q.page.ending_before.is_none()
        && q.event_type.is_none()
        && q.created_after_ms.is_none();
    let position = if newest && state.event_pages.keeps() {
        Some(state.events.event_log_position(&caller.tenant).await?)
    } else {
        None
    };
    if let Some(at) = position
        && let Some(body) = state.event_pages.get(&caller.tenant, q.page.limit, at)
    {
        return Ok(json_response(body));
    }
    let body = match state.events.list_events(&caller.tenant, &q).await? {
        EventPage::UnknownCursor => return Err(SandboxError::NotFound("event for the cursor")),
        EventPage::Page { events, has_more } => {
            let first = events.first().map(|e| e.id.as_str());
            let last = events.last().map(|e| e.id.as_str());
            let next = list::next_cursor(&q.page, first, last, has_more);
            Bytes::from(list::envelope(
                "/v1/events",
                events.iter().map(|e| e.body.as_str()),
                has_more,
                next,
            ))
        }
    };
    if let Some(at) = position {
        state
            .event_pages
            .put(&caller.tenant, q.page.limit, at, body.clone());
    }
    Ok(json_response(body))
}

pub(crate) fn json_response(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayRequest {
    /// Replay to this endpoint only; otherwise to every enabled endpoint subscribed to the event's type.
    endpoint_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct ReplayResult {
    #[schema(example = "event_replay")]
    object: &'static str,
    event_id: String,
    deliveries: Vec<ReplayDelivery>,
}

#[derive(Serialize, ToSchema)]
struct ReplayDelivery {
    endpoint_id: String,
    url: String,
    /// `succeeded` or `failed`.
    status: &'static str,
    http_status: Option<u16>,
    error: Option<String>,
    duration_ms: u64,
}

/// Re-deliver an event now, synchronously, signed like the original.
#[utoipa::path(post, operation_id = "replayEvent", path = "/v1/events/{id}/replay", tag = "events", security(("oauth2" = ["sandbox:write"])),
    params(("id" = String, Path, pattern = "^[0-9A-HJKMNP-TV-Z]{26}$"), ("Idempotency-Key" = String, Header)),
    request_body(content = Option<ReplayRequest>, description = "optional"),
    responses((status = 202, body = ReplayResult), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope)))]
pub async fn replay(
    State(state): State<SandboxState>,
    Writer(caller): Writer,
    PathId(id): PathId<kind::Event>,
    idempotent: Idempotent,
    body: OptionalJsonBody<ReplayRequest>,
) -> Result<Response, SandboxError> {
    let id = PublishedId::from(id);
    let guarded = idempotent.by(&caller.tenant, &body.raw, caller.now(&state));
    state
        .idempotency
        .run(guarded, || async {
            let event = state
                .events
                .event(&caller.tenant, &id)
                .await?
                .ok_or(SandboxError::NotFound("event"))?;
            let wanted = body.value.endpoint_id.as_deref();
            let targets: Vec<_> = state
                .events
                .endpoints(&caller.tenant)
                .await?
                .into_iter()
                .filter(|r| match wanted {
                    Some(w) => r.endpoint.id.as_str() == w,
                    None => r.endpoint.receives(event.event_type.as_str()),
                })
                .collect();
            if wanted.is_some() && targets.is_empty() {
                return Err(SandboxError::NotFound("webhook endpoint"));
            }
            // Endpoints are attempted concurrently, so the call lasts at most one
            // delivery timeout however many endpoints there are.
            let unix_now = time::OffsetDateTime::now_utc().unix_timestamp();
            let attempts = targets.iter().map(|target| async {
                let secret = state
                    .master_key
                    .open(SECRET_PURPOSE, &target.sealed_secret)
                    .map_err(|e| SandboxError::Internal(e.to_string()))?;
                let secret = String::from_utf8_lossy(&secret);
                let attempt = state
                    .sender
                    .deliver(&target.endpoint.url, &[&secret], &event.body, unix_now)
                    .await;
                Ok::<_, SandboxError>(ReplayDelivery {
                    endpoint_id: target.endpoint.id.to_string(),
                    url: target.endpoint.url.clone(),
                    status: if attempt.succeeded() {
                        "succeeded"
                    } else {
                        "failed"
                    },
                    http_status: attempt.status,
                    error: attempt.error,
                    duration_ms: attempt.duration_ms,
                })
            });
            let deliveries = futures_util::future::join_all(attempts)
                .await
                .into_iter()
                .collect::<Result<Vec<_>, _>>()?;
            let result = ReplayResult {
                object: "event_replay",
                event_id: event.id.to_string(),
                deliveries,
            };
            Ok(Prepared::json(
                StatusCode::ACCEPTED,
                &result,
                WriteSet::default(),
            )?)
        })
        .await
}
