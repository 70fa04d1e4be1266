//! `POST /open-banking/events/{bank_id}`: where each bank posts its event
//! notifications (the Event Notification API's TPP endpoint, registered
//! with the bank beside lendhub's redirect URI). The body is the bank's
//! signed token (`application/jwt`); `flows::bank_notification` checks and
//! acts on it before the answer, so a 202 means it was taken.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use lendhub_http::Problem;

use crate::flows::Context;
use crate::flows::FlowError;
use crate::flows::bank_notification::{self, Refused};

/// Where `bank_id`'s notifications are posted, below the hub's public URL.
pub fn path(bank_id: &str) -> String {
    format!("/open-banking/events/{bank_id}")
}

/// A notification is a JWT of a few hundred bytes.
const MOST_BYTES: usize = 16 * 1024;

pub fn router(flows: Context) -> Router {
    Router::new()
        .route("/open-banking/events/{bank_id}", post(notified))
        .layer(axum::extract::DefaultBodyLimit::max(MOST_BYTES))
        .with_state(flows)
}

async fn notified(
    State(flows): State<Context>,
    Path(bank_id): Path<String>,
    body: Bytes,
) -> Response {
    let Ok(token) = std::str::from_utf8(&body) else {
        return not_a_token();
    };
    match bank_notification::heard(&flows, &bank_id, token.trim()).await {
        Ok(_) => StatusCode::ACCEPTED.into_response(),
        Err(Refused::UnknownBank(_)) => {
            Problem::new(StatusCode::NOT_FOUND, "not_found", "no such bank").into_response()
        }
        Err(Refused::Invalid(_)) => not_a_token(),
        Err(Refused::Flow(FlowError::Unavailable(why))) => {
            tracing::warn!(
                bank = bank_id,
                why,
                "a bank notification could not be acted on"
            );
            Problem::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "service_unavailable",
                "the notification could not be acted on now; send it again",
            )
            .retry_after_ms(1_000)
            .into_response()
        }
        Err(Refused::Flow(e)) => {
            tracing::error!(bank = bank_id, error = %e, "a bank notification failed");
            Problem::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                "the notification could not be acted on",
            )
            .into_response()
        }
    }
}

fn not_a_token() -> Response {
    Problem::new(
        StatusCode::BAD_REQUEST,
        "signature_invalid",
        "the body is not an event notification signed by the bank for lendhub",
    )
    .into_response()
}
