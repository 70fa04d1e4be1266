//! The REST tier's events: the seed's envelope (`evt_` id, `object: event`,
//! `type`, `api_version`, `created_at`, `livemode`, `data.object`) around the
//! resource as it was, stored in the same commit as the change it reports,
//! and `GET /events`.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use lendhub_domain::ids::{self, HubId};
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_domain::webhooks::event_list;
use lendhub_http::list;
use lendhub_store::{EventPage, EventQuery};

use super::caller::RestCaller;
use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;

/// Where a list of the tier lives, as its envelope's `url` says.
pub fn list_url(env: Environment, path: &str) -> String {
    let prefix = match env {
        Environment::Live => crate::partner::PREFIX,
        Environment::Test => super::SANDBOX_PREFIX,
    };
    format!("{prefix}{path}")
}

fn query(raw: Option<&str>) -> Result<EventQuery, PartnerError> {
    let request = list::parse(raw, list::DEFAULT_LIMIT, &["type", "created_after"])
        .map_err(PartnerError::Validation)?;
    let filters = event_list::check(request.filter("type"), request.filter("created_after"))?;
    // A cursor that is not an event's id names nothing of this list.
    if request.cursors().any(|c| ids::EventId::parse(c).is_none()) {
        return Err(PartnerError::NotFound("event for the cursor"));
    }
    Ok(EventQuery {
        event_type: filters.event_type,
        created_after_ms: filters.created_after_ms,
        page: request.page,
    })
}

/// List your events, newest first (kept 30 days).
#[utoipa::path(get, operation_id = "listEvents", path = "/events", tag = "events",
    security(("oauth2" = ["events.read"]), ("api_key" = [])),
    params(("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "default 20"),
        ("starting_after" = Option<String>, Query, description = "an event id: page toward older events"),
        ("ending_before" = Option<String>, Query, description = "an event id: page toward newer events"),
        ("type" = Option<String>, Query, description = "only events of this type"),
        ("created_after" = Option<String>, Query, format = DateTime, description = "RFC 3339: only events created after this moment")),
    responses((status = 200, description = "`{object: \"list\", data: [event], has_more, url, next_cursor}`"),
        (status = 401, description = "missing_api_key, invalid_api_key, secret_key_required, token_expired, …"),
        (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the cursor names no event of yours"),
        (status = 422, description = "validation_failed")))]
pub async fn list(
    State(state): State<PartnerState>,
    caller: RestCaller,
    RawQuery(raw): RawQuery,
) -> Result<Response, PartnerError> {
    caller.require(PartnerScope::EventsRead)?;
    let q = query(raw.as_deref())?;
    let owner = caller.tenant();
    // The newest page, unfiltered, is what pollers ask for again and again.
    let newest = q.page.starting_after.is_none()
        && q.page.ending_before.is_none()
        && q.event_type.is_none()
        && q.created_after_ms.is_none();
    let position = if newest && state.event_pages.keeps() {
        Some(state.events.event_log_position(&owner).await?)
    } else {
        None
    };
    if let Some(at) = position
        && let Some(body) = state.event_pages.get(&owner, q.page.limit, at)
    {
        return Ok(json_response(body));
    }
    let (events, has_more) = match state.events.list_events(&owner, &q).await? {
        EventPage::UnknownCursor => return Err(PartnerError::NotFound("event for the cursor")),
        EventPage::Page { events, has_more } => (events, has_more),
    };
    let first = events.first().map(|e| e.id.as_str());
    let last = events.last().map(|e| e.id.as_str());
    let body = Bytes::from(list::envelope(
        &list_url(caller.env, "/events"),
        events.iter().map(|e| e.body.as_str()),
        has_more,
        list::next_cursor(&q.page, first, last, has_more),
    ));
    if let Some(at) = position {
        state
            .event_pages
            .put(&owner, q.page.limit, at, body.clone());
    }
    Ok(json_response(body))
}

pub(crate) fn json_response(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}
