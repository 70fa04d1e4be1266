use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::sandbox::events::{ALL_EVENTS, EventType};
use lendhub_domain::sandbox::ids::EndpointId;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
use lendhub_http::FieldIssue;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::{JsonBody, OptionalJsonBody};
use lendhub_store::{EndpointRecord, EventWrite, WriteSet};
use lendhub_system::webhook_secret;
use lendhub_webhooks::SECRET_PURPOSE;
use lendhub_webhooks::policy::UrlRejection;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::Writer;
use crate::error::SandboxError;
use crate::event_log::event;
use crate::path_id::PathId;
use crate::state::SandboxState;
use crate::views::{ErrorEnvelope, WebhookEndpointView};
use lendhub_system::{NewRandom, Seal};

pub const MAX_ENDPOINTS: usize = 16;
const MAX_DESCRIPTION: usize = 500;
const MAX_URL: usize = 2048;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhookEndpoint {
    /// HTTPS URL on a public address.
    #[schema(
        required = true,
        max_length = 2048,
        pattern = "^https://([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.(?![0-9]+([:/]|$))(?!0[xX][0-9A-Fa-f]*([:/]|$))[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?|(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})(:[0-9]{1,4})?(/[!-~]*)?$",
        example = "https://partner.example/webhooks/lendhub"
    )]
    url: Option<String>,
    /// Event types to receive, or `["*"]` (the default) for all.
    #[schema(min_items = 1)]
    enabled_events: Option<Vec<String>>,
    /// Up to 500 characters.
    description: Option<String>,
}

fn check_events(events: &[String]) -> Result<(), SandboxError> {
    if events.is_empty() {
        return Err(SandboxError::Validation(vec![FieldIssue::new(
            "enabled_events",
            "min_items",
        )]));
    }
    let unknown: Vec<FieldIssue> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.as_str() != ALL_EVENTS && EventType::sandbox(e).is_none())
        .map(|(i, _)| FieldIssue::new(format!("enabled_events[{i}]"), "unknown_event_type"))
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(SandboxError::WebhookEventUnknown(unknown))
    }
}

fn url_rejected(r: &UrlRejection) -> SandboxError {
    SandboxError::WebhookUrlInvalid(FieldIssue::new("url", r.reason()))
}

/// Register a webhook endpoint. The signing secret is returned once, here.
#[utoipa::path(post, operation_id = "createWebhookEndpoint", path = "/v1/webhook-endpoints", tag = "webhooks", security(("oauth2" = ["sandbox:write"])),
    params(("Idempotency-Key" = String, Header)),
    request_body = CreateWebhookEndpoint,
    responses((status = 201, body = WebhookEndpointView), (status = 400, body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope),
        (status = 422, description = "validation_failed, webhook_endpoint_url_invalid, webhook_event_unknown or webhook_endpoint_limit", body = ErrorEnvelope)))]
pub async fn create(
    State(state): State<SandboxState>,
    Writer(caller): Writer,
    idempotent: Idempotent,
    body: JsonBody<CreateWebhookEndpoint>,
) -> Result<Response, SandboxError> {
    let guarded = idempotent.by(&caller.tenant, &body.raw, caller.now(&state));
    state
        .idempotency
        .run(guarded, || async {
            let input = &body.value;
            let raw_url = input.url.as_deref().ok_or_else(|| {
                SandboxError::Validation(vec![FieldIssue::new("url", "required")])
            })?;
            if raw_url.len() > MAX_URL {
                return Err(SandboxError::Validation(vec![FieldIssue::new(
                    "url",
                    "max_length",
                )]));
            }
            if input
                .description
                .as_ref()
                .is_some_and(|d| d.chars().count() > MAX_DESCRIPTION)
            {
                return Err(SandboxError::Validation(vec![FieldIssue::new(
                    "description",
                    "max_length",
                )]));
            }
            let events = input
                .enabled_events
                .clone()
                .unwrap_or_else(|| vec![ALL_EVENTS.to_owned()]);
            check_events(&events)?;
            let url = state
                .sender
                .policy()
                .check_url(raw_url)
                .map_err(|r| url_rejected(&r))?;
            state
                .sender
                .policy()
                .check_resolved(&url)
                .await
                .map_err(|r| url_rejected(&r))?;
            let now = caller.now(&state);
            let endpoint = WebhookEndpoint {
                id: EndpointId::new_random(lendhub_domain::clock::unix_ms(now) as u64).into(),
                owner: caller.tenant.clone(),
                url: url.to_string(),
                enabled_events: events,
                description: input.description.clone(),
                status: EndpointStatus::Enabled,
                created_at: now,
                api_version: None,
                metadata: Default::default(),
            };
            let secret = webhook_secret();
            let sealed_secret = state.master_key.seal(SECRET_PURPOSE, secret.as_bytes());
            let view = WebhookEndpointView::new(&endpoint, Some(secret));
            let mut writes = WriteSet::default();
            // The limit is enforced by the commit, which takes a slot.
            writes.push(EventWrite::InsertEndpoint {
                record: EndpointRecord {
                    endpoint,
                    sealed_secret,
                },
                max_per_owner: MAX_ENDPOINTS as u32,
            });
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
        .map_err(|e| match e {
            // The only conditional write of a registration: its slot.
            SandboxError::Conflict(_) => SandboxError::WebhookEndpointLimit(MAX_ENDPOINTS),
            e => e,
        })
}

/// The enable request takes no members; an empty body is fine.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnableWebhookEndpoint {}

/// Re-enable an endpoint, typically one disabled after ~72 h of failed
/// deliveries. Emits `webhook_endpoint.enabled`; an endpoint that is already
/// enabled is returned unchanged, with no event.
#[utoipa::path(post, operation_id = "enableWebhookEndpoint", path = "/v1/webhook-endpoints/{id}/enable", tag = "webhooks", security(("oauth2" = ["sandbox:write"])),
    params(("id" = String, Path, pattern = "^[0-9A-HJKMNP-TV-Z]{26}$"), ("Idempotency-Key" = String, Header)),
    request_body(content = Option<EnableWebhookEndpoint>, description = "optional, empty"),
    responses((status = 200, body = WebhookEndpointView), (status = 400, body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
        (status = 409, description = "the endpoint changed concurrently; retry", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope)))]
pub async fn enable(
    State(state): State<SandboxState>,
    Writer(caller): Writer,
    PathId(id): PathId,
    idempotent: Idempotent,
    body: OptionalJsonBody<EnableWebhookEndpoint>,
) -> Result<Response, SandboxError> {
    let now = caller.now(&state);
    let guarded = idempotent.by(&caller.tenant, &body.raw, now);
    state
        .idempotency
        .run(guarded, || async {
            let stored = state
                .events
                .endpoints(&caller.tenant)
                .await?
                .into_iter()
                .find(|r| r.endpoint.id.as_str() == id.as_str())
                .ok_or(SandboxError::NotFound("webhook endpoint"))?
                .endpoint;
            let mut writes = WriteSet::default();
            let endpoint = if stored.status == EndpointStatus::Enabled {
                stored
            } else {
                let enabled = WebhookEndpoint {
                    status: EndpointStatus::Enabled,
                    ..stored
                };
                writes
                    .push(EventWrite::SetEndpointStatus {
                        endpoint: enabled.clone(),
                        from: EndpointStatus::Disabled,
                    })
                    .push(EventWrite::InsertEvent(event(
                        &caller.tenant,
                        EventType::WebhookEndpointEnabled,
                        &WebhookEndpointView::new(&enabled, None),
                        now,
                    )?));
                enabled
            };
            Ok(Prepared::json(
                StatusCode::OK,
                &WebhookEndpointView::new(&endpoint, None),
                writes,
            )?)
        })
        .await
}
