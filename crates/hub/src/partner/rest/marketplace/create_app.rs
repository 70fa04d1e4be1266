use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::marketplace::MAX_REDIRECT_URIS;
use lendhub_domain::marketplace::app_request::{self, AppRequest};
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::flows::marketplace::new_app;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::rest::webhook_endpoints::check_url;
use crate::partner::state::PartnerState;
use crate::views::marketplace::AppView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateApp {
    #[schema(required = true, schema_with = crate::partner::rest::schemas::name_200, example = "Fraudscope")]
    name: Option<String>,
    #[schema(required = true, schema_with = crate::partner::rest::schemas::category)]
    category: Option<String>,
    // Where the vendor's own flows return applicants.
    #[serde(default)]
    #[schema(
        schema_with = redirect_uris_schema
    )]
    redirect_uris: Vec<String>,
    // Where its subscriptions' events are delivered.
    #[schema(
        schema_with = crate::partner::rest::schemas::public_https_url
    )]
    webhook_url: Option<String>,
}

fn redirect_uris_schema() -> utoipa::openapi::schema::Array {
    crate::partner::rest::schemas::redirect_uris(MAX_REDIRECT_URIS)
}

impl CreateApp {
    fn request(&self) -> AppRequest {
        AppRequest {
            name: self.name.clone(),
            category: self.category.clone(),
            redirect_uris: self.redirect_uris.clone(),
        }
    }
}

/// Register a marketplace app listing for a vendor you work with (open
/// banking, identity, e-sign, accounting, fraud). It starts
/// `pending_review`; once the lender approves it, it may subscribe to your
/// events and publish signals into decisioning.
#[utoipa::path(post, operation_id = "createMarketplaceApp", path = "/marketplace/apps", tag = "marketplace",
    security(("oauth2" = ["marketplace.write"]), ("api_key" = [])),
    params(("Idempotency-Key" = String, Header, description = "required; 8 to 128 characters")),
    request_body = CreateApp,
    responses((status = 201, body = AppView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed (also when the required key is missing)"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 409, description = "idempotency_key_reused or idempotency_key_in_progress"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed (detail names each field), webhook_endpoint_url_invalid")))]
pub async fn create_app(
    State(state): State<PartnerState>,
    caller: RestCaller,
    key: Idempotent,
    body: JsonBody<CreateApp>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::MarketplaceWrite)?;
    let key = Some(key);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let checked = app_request::check(&body.value.request())?;
            let webhook_url = match body.value.webhook_url.as_deref() {
                None => None,
                Some(raw) => Some(check_url(&state, "webhook_url", raw).await?),
            };
            let (view, writes) = new_app(&write.owner, checked, webhook_url, write.now);
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
}
