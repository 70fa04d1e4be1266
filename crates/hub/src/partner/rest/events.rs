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
use lendhub_domain::sandbox::events::{Event, EventType, HUB_API_VERSION, Publisher};
use lendhub_domain::tenant::{Tenant, TenantKind};
use lendhub_http::{FieldIssue, list};
use lendhub_store::{EventPage, EventQuery, EventWrite, PublicWrite, Write};
use serde::Serialize;
use time::OffsetDateTime;

use super::caller::RestCaller;
use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;

/// A new event of the REST tier about `object`, owned by `owner`; `livemode`
/// is the owner's environment.
pub fn event(
    owner: &Tenant,
    kind: EventType,
    object: &impl Serialize,
    now: OffsetDateTime,
) -> Result<Event, serde_json::Error> {
    let livemode = matches!(owner.kind(), TenantKind::Partner { livemode: true, .. });
    let publisher = Publisher {
        api_version: HUB_API_VERSION,
        livemode,
    };
    let id: ids::EventId = lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    publisher.event(id, owner, kind, object, now)
}

/// Renders a hub endpoint's disabling, for the delivery engine.
pub struct EndpointEventRenderer;

impl lendhub_webhooks::worker::EndpointEvents for EndpointEventRenderer {
    /// The `webhook_endpoint.disabled` event, and an e-mail to the
    /// partner's contact address (if it has one) through the mail outbox.
    fn disabled(
        &self,
        endpoint: &lendhub_domain::webhooks::endpoint::WebhookEndpoint,
        at: OffsetDateTime,
    ) -> Result<Vec<Write>, String> {
        let TenantKind::Partner {
            client_id,
            livemode,
            ..
        } = endpoint.owner.kind()
        else {
            return Err(format!("{} is not a partner", endpoint.owner));
        };
        let view = super::webhook_endpoints::WebhookEndpointView::new(endpoint, livemode, None);
        let announced = event(
            &endpoint.owner,
            EventType::WebhookEndpointDisabled,
            &view,
            at,
        )
        .map_err(|e| e.to_string())?;
        let environment = if livemode { "live" } else { "test" };
        let notice = PublicWrite::MailPartner {
            id: format!("mail_{}", announced.id),
            client_id: client_id.to_owned(),
            subject: format!("Webhook endpoint {} disabled", endpoint.id),
            body: format!(
                "Every delivery to your webhook endpoint {id} ({url}, {environment} environment) \
                 has failed for 72 hours, so lendhub has disabled it and stopped delivering to it.\n\n\
                 Fix the receiver, then enable the endpoint again:\n  POST /webhook_endpoints/{id}/enable\n\
                 Events from the last 30 days can be replayed with POST /events/{{id}}/replay.\n",
                id = endpoint.id,
                url = endpoint.url,
            ),
            due_ms: lendhub_domain::clock::unix_ms(at),
        };
        Ok(vec![
            EventWrite::InsertEvent(announced).into(),
            notice.into(),
        ])
    }
}

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
    let mut issues = Vec::new();
    if let Some(t) = request.filter("type")
        && EventType::parse(t).is_none()
    {
        issues.push(FieldIssue::new("type", "unknown_event_type"));
    }
    let created_after_ms = request.created_after_ms().unwrap_or_else(|issue| {
        issues.push(issue);
        None
    });
    if !issues.is_empty() {
        return Err(PartnerError::Validation(issues));
    }
    // A cursor that is not an event's id names nothing of this list.
    if request.cursors().any(|c| ids::EventId::parse(c).is_none()) {
        return Err(PartnerError::NotFound("event for the cursor"));
    }
    Ok(EventQuery {
        event_type: request.filter("type").map(str::to_owned),
        created_after_ms,
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
