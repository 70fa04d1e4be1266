//! `POST /payout-rail/events/{environment}`: where the environment's payout
//! rail posts its webhooks (registered with the clearing bank). The body is
//! the bank's JSON, signed in `DigitalSignature`; `flows::fund` checks it
//! and books what it says before answering, so the signed `200` with the
//! webhook's nonce, which is what tells the bank it was taken, means it
//! was committed. Anything else and the bank posts it again.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use lendhub_domain::partner::credentials::Environment;
use lendhub_http::Problem;

use crate::flows::fund::{self, WebhookError};
use crate::flows::{Context, FlowError};

/// Where `env`'s rail posts, below the hub's public URL.
pub fn path(env: Environment) -> String {
    format!("/payout-rail/events/{}", env.as_str())
}

/// A webhook is a few kilobytes; CHAPS ones carry an ISO 20022 document of
/// up to 80,000 characters.
const MOST_BYTES: usize = 128 * 1024;

pub fn router(flows: Context) -> Router {
    Router::new()
        .route("/payout-rail/events/{environment}", post(posted))
        .layer(axum::extract::DefaultBodyLimit::max(MOST_BYTES))
        .with_state(flows)
}

async fn posted(
    State(flows): State<Context>,
    Path(environment): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(env) = Environment::parse(&environment) else {
        return Problem::new(StatusCode::NOT_FOUND, "not_found", "no such environment")
            .into_response();
    };
    let signature = headers
        .get("digitalsignature")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    match fund::rail_webhook(&flows, env, &body, signature).await {
        Ok((answer, signature)) => {
            let mut response = (StatusCode::OK, answer).into_response();
            let headers = response.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            if let Ok(value) = HeaderValue::from_str(&signature) {
                headers.insert("DigitalSignature", value);
            }
            response
        }
        Err(WebhookError::Refused(why)) => {
            tracing::warn!(environment, %why, "a payout rail webhook was refused");
            Problem::new(
                StatusCode::BAD_REQUEST,
                "signature_invalid",
                "the body is not a webhook signed by the payout rail",
            )
            .into_response()
        }
        Err(WebhookError::Flow(FlowError::Unavailable(why))) => {
            tracing::warn!(
                environment,
                why,
                "a payout rail webhook could not be acted on"
            );
            Problem::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "service_unavailable",
                "the webhook could not be acted on now; send it again",
            )
            .retry_after_ms(1_000)
            .into_response()
        }
        Err(WebhookError::Flow(e)) => {
            tracing::error!(environment, error = %e, "a payout rail webhook failed");
            Problem::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                "the webhook could not be acted on",
            )
            .into_response()
        }
    }
}
