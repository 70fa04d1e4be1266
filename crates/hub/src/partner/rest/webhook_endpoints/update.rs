use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{MaybeIdempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use lendhub_domain::webhooks::endpoint_request::{Change, Settings};

use super::{check_url, find};
use crate::flows::change_endpoint::changing;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::webhook_endpoint::WebhookEndpointView;

/// What to change; members left out stay as they are.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateWebhookEndpoint {
    #[schema(
        pattern = "^https://([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.(?![0-9]+([:/]|$))(?!0[xX][0-9A-Fa-f]*([:/]|$))[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?|(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})(:[0-9]{1,4})?(/[!-~]*)?$"
    )]
    url: Option<String>,
    #[schema(min_items = 1)]
    enabled_events: Option<Vec<String>>,
    description: Option<String>,
    api_version: Option<String>,
    /// Replaces the whole map.
    metadata: Option<BTreeMap<String, String>>,
    /// `true` pauses deliveries (emits `webhook_endpoint.disabled`);
    /// `false` is the same as `POST …/enable`.
    disabled: Option<bool>,
}

impl UpdateWebhookEndpoint {
    fn change(&self) -> Change {
        Change {
            url: self.url.clone(),
            enabled_events: self.enabled_events.clone(),
            settings: Settings {
                description: self.description.clone(),
                api_version: self.api_version.clone(),
                metadata: self.metadata.clone(),
            },
            disabled: self.disabled,
        }
    }
}

/// Change a webhook endpoint's URL, events, description, API version or
/// metadata, or pause it (`disabled`). Its secret stays.
#[utoipa::path(post, operation_id = "updateWebhookEndpoint", path = "/webhook_endpoints/{id}", tag = "webhooks",
    security(("oauth2" = ["webhooks.manage"]), ("api_key" = [])),
    params(("id" = String, Path, description = "whe_…"), ("Idempotency-Key" = Option<String>, Header)),
    request_body = UpdateWebhookEndpoint,
    responses((status = 200, body = WebhookEndpointView), (status = 400, description = "invalid_json, unknown_field"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found"), (status = 409, description = "changed concurrently"),
        (status = 422, description = "validation_failed, webhook_endpoint_url_invalid or webhook_event_unknown")))]
pub async fn update(
    State(state): State<PartnerState>,
    caller: RestCaller,
    Path(id): Path<String>,
    MaybeIdempotent(key): MaybeIdempotent,
    body: JsonBody<UpdateWebhookEndpoint>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::WebhooksManage)?;
    let current = find(&state, &write.owner, &id).await?.endpoint;
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let change = body.value.change();
            let url = match &change.url {
                Some(raw) => Some(check_url(&state, "url", raw).await?),
                None => None,
            };
            change.check()?;
            let changed = change.apply(&current, url);
            let (view, writes) = changing(
                &write.owner,
                &current,
                changed,
                caller.livemode(),
                write.now,
            )?;
            Ok(Prepared::json(StatusCode::OK, &view, writes)?)
        })
        .await
}
