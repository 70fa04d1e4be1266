use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::marketplace::subscription_request::{self, SubscriptionRequest};
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::flows::marketplace::subscribe as subscribe_app;
use crate::flows::webhook_endpoints::MAX_ENDPOINTS;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::marketplace::SubscriptionView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Subscribe {
    /// `mkt_…`: an approved app of yours with a `webhook_url`.
    #[schema(
        required = true,
        pattern = "^mkt_[0-7][0-9A-HJKMNP-TV-Z]{25}$",
        example = "mkt_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0"
    )]
    app_id: Option<String>,
    /// Event types, or `["*"]` for all. Typical: application.submitted,
    /// application.funded, account.updated, decision.completed, payment.*.
    #[schema(required = true, min_items = 1, example = json!(["application.submitted", "decision.completed"]))]
    enabled_events: Option<Vec<String>>,
}

impl Subscribe {
    fn request(&self) -> SubscriptionRequest {
        SubscriptionRequest {
            app_id: self.app_id.clone(),
            enabled_events: self.enabled_events.clone(),
        }
    }
}

/// Subscribe an approved app to your events. Deliveries go to the app's
/// `webhook_url` through a webhook endpoint of its own (`webhook_endpoint_id`,
/// managed, retried and replayed like any), signed with the app's own
/// secret, shown in this answer only.
#[utoipa::path(post, operation_id = "createMarketplaceSubscription", path = "/marketplace/subscriptions", tag = "marketplace",
    security(("oauth2" = ["marketplace.write"]), ("api_key" = [])),
    params(("Idempotency-Key" = String, Header, description = "required; 8 to 128 characters")),
    request_body = Subscribe,
    responses((status = 201, body = SubscriptionView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed (also when the required key is missing)"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: no such app of yours"),
        (status = 409, description = "marketplace_app_not_approved; idempotency_key_reused or idempotency_key_in_progress"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed (the app has no webhook_url: reason `webhook_url_required`), webhook_event_unknown, webhook_endpoint_limit")))]
pub async fn subscribe(
    State(state): State<PartnerState>,
    caller: RestCaller,
    key: Idempotent,
    body: JsonBody<Subscribe>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::MarketplaceWrite)?;
    let key = Some(key);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let request = subscription_request::check(&body.value.request())?;
            let (view, writes) =
                subscribe_app(&state.flows, &write.owner, request, write.now).await?;
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
        .map_err(|e| match e {
            // The only conditional write: the endpoint's slot.
            PartnerError::Conflict(_) => PartnerError::WebhookEndpointLimit(MAX_ENDPOINTS),
            e => e,
        })
}
