use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::JsonBody;
use lendhub_store::WriteSet;
use serde::Deserialize;
use utoipa::ToSchema;

use lendhub_domain::webhooks::endpoint_request::{Registration, Settings, check_registration};

use super::{MAX_ENDPOINTS, check_url};
use crate::flows::webhook_endpoints::{Draft, new_endpoint};
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::webhook_endpoint::WebhookEndpointView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhookEndpoint {
    /// HTTPS, on a public address.
    #[schema(
        required = true,
        max_length = 2048,
        pattern = "^https://([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.(?![0-9]+([:/]|$))(?!0[xX][0-9A-Fa-f]*([:/]|$))[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?|(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})(:[0-9]{1,4})?(/[!-~]*)?$",
        example = "https://partner.example/hooks/lendhub"
    )]
    url: Option<String>,
    /// Event types to receive, or `["*"]` for all.
    #[schema(required = true, min_items = 1, example = json!(["application.submitted", "decision.completed"]))]
    enabled_events: Option<Vec<String>>,
    /// Up to 500 characters.
    description: Option<String>,
    /// Pin payloads to this version; default: the account's.
    api_version: Option<String>,
    /// Up to 20 string pairs, returned verbatim.
    #[serde(default)]
    metadata: BTreeMap<String, String>,
}

impl CreateWebhookEndpoint {
    fn registration(&self) -> Registration {
        Registration {
            url: self.url.clone(),
            enabled_events: self.enabled_events.clone(),
            settings: Settings {
                description: self.description.clone(),
                api_version: self.api_version.clone(),
                metadata: Some(self.metadata.clone()),
            },
        }
    }
}

/// Register a webhook endpoint. Its signing secret is in this answer only.
#[utoipa::path(post, operation_id = "createWebhookEndpoint", path = "/webhook_endpoints", tag = "webhooks",
    security(("oauth2" = ["webhooks.manage"]), ("api_key" = [])),
    params(("Idempotency-Key" = Option<String>, Header, description = "optional; 8 to 128 characters")),
    request_body = CreateWebhookEndpoint,
    responses((status = 201, body = WebhookEndpointView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 409, description = "idempotency_key_reused or idempotency_key_in_progress"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed, webhook_endpoint_url_invalid, webhook_event_unknown or webhook_endpoint_limit")))]
pub async fn create(
    State(state): State<PartnerState>,
    caller: RestCaller,
    MaybeIdempotent(key): MaybeIdempotent,
    body: JsonBody<CreateWebhookEndpoint>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::WebhooksManage)?;
    let (owner, now) = (&write.owner, write.now);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let input = &body.value;
            let checked = check_registration(&input.registration())?;
            let url = check_url(&state, "url", &checked.url).await?;
            let draft = Draft {
                url,
                enabled_events: checked.enabled_events,
                description: input.description.clone(),
                api_version: input.api_version.clone(),
                metadata: input.metadata.clone(),
            };
            let (endpoint, secret, insert) = new_endpoint(&state.flows, owner, draft, now);
            let view = WebhookEndpointView::new(&endpoint, caller.livemode(), Some(secret));
            let mut writes = WriteSet::default();
            // The limit is enforced by the commit, which takes a slot.
            writes.push(insert);
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
        .map_err(|e| match e {
            // The only conditional write of a registration: its slot.
            PartnerError::Conflict(_) => PartnerError::WebhookEndpointLimit(MAX_ENDPOINTS),
            e => e,
        })
}
