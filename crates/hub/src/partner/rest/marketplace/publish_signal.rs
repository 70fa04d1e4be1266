use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::marketplace::signal_request::{self, SignalRequest};
use lendhub_domain::partner::scope::PartnerScope;
use lendhub_http::idempotency::{Idempotent, Prepared};
use lendhub_http::json::JsonBody;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::flows::marketplace::publish_signal as publish;
use crate::partner::error::PartnerError;
use crate::partner::rest::caller::RestCaller;
use crate::partner::state::PartnerState;
use crate::views::marketplace::SignalView;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PublishSignal {
    /// `app_…`: an application of yours.
    #[schema(
        required = true,
        pattern = "^app_[0-7][0-9A-HJKMNP-TV-Z]{25}$",
        example = "app_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0"
    )]
    application_id: Option<String>,
    /// The kind of check.
    #[schema(required = true, schema_with = crate::partner::rest::schemas::category)]
    kind: Option<String>,
    /// The check's confidence, 0 to 1 (kept to three decimal places).
    #[schema(required = true, value_type = f64, minimum = 0, maximum = 1, example = 0.95)]
    score: Option<Value>,
    #[schema(required = true, schema_with = crate::partner::rest::schemas::verdict)]
    verdict: Option<String>,
    /// What the check saw, as a JSON object of at most 8 KiB: kept with
    /// the signal for the lender's review.
    #[schema(required = true, value_type = Object)]
    evidence: Option<Value>,
    /// `mkt_…`: the approved app of yours that made the check, if one did.
    #[schema(example = "mkt_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0")]
    app_id: Option<String>,
}

impl PublishSignal {
    fn request(&self) -> SignalRequest {
        SignalRequest {
            application_id: self.application_id.clone(),
            kind: self.kind.clone(),
            score: self.score.clone(),
            verdict: self.verdict.clone(),
            evidence: self.evidence.clone(),
        }
    }
}

/// Publish a marketplace signal about an application. It counts
/// (`accepted: true`) only while the application's decision is unresolved:
/// before it is submitted, or while it is referred to an underwriter;
/// afterwards it is kept but `accepted: false` and has no effect. The
/// decision's reasons carry `marketplace_signal` when signals moved it.
#[utoipa::path(post, operation_id = "publishMarketplaceSignal", path = "/marketplace/signals", tag = "marketplace",
    security(("oauth2" = ["marketplace.write"]), ("api_key" = [])),
    params(("Idempotency-Key" = String, Header, description = "required; 8 to 128 characters")),
    request_body = PublishSignal,
    responses((status = 201, body = SignalView),
        (status = 400, description = "invalid_json, unknown_field, idempotency_key_malformed (also when the required key is missing)"),
        (status = 401, description = "credentials"), (status = 403, description = "insufficient_scope"),
        (status = 404, description = "not_found: the application or the app"),
        (status = 409, description = "marketplace_app_not_approved; conflict (the application changed meanwhile: retry); idempotency_key_reused or idempotency_key_in_progress"),
        (status = 413, description = "payload_too_large"), (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "validation_failed (detail names each field; `signal_limit` when the application already has 100 signals)")))]
pub async fn publish_signal(
    State(state): State<PartnerState>,
    caller: RestCaller,
    key: Idempotent,
    body: JsonBody<PublishSignal>,
) -> Result<Response, PartnerError> {
    let write = caller.begin_write(&state, PartnerScope::MarketplaceWrite)?;
    let key = Some(key);
    state
        .idempotency
        .run_maybe(write.guarded(&key, &body.raw), || async {
            let checked = signal_request::check(&body.value.request())?;
            let app_id = body.value.app_id.as_deref();
            let (view, writes) =
                publish(&state.flows, &write.owner, checked, app_id, write.now).await?;
            Ok(Prepared::json(StatusCode::CREATED, &view, writes)?)
        })
        .await
}
