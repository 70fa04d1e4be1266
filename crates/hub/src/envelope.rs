//! The hub error envelope (seed 001, Errors → Envelope):
//! `{"error": {"code", "message", "type", "detail"?, "correlation_id",
//! "retryable", "retry_after_ms"?}}`, plus the hub's headers:
//! `x-service-request-id` and `X-Request-Id` on every response (a caller's
//! own `X-Request-Id` is echoed), `X-Service-Correlation-Id` on errors.

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use lendhub_http::around::Hook;
use lendhub_http::{Problem, RequestId};
use serde_json::{Value, json};

const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
const CORRELATION: HeaderName = HeaderName::from_static("x-service-correlation-id");

/// The correlation id of a request: its request id's unique part, `cor_`-prefixed.
fn correlation_id(request_id: &RequestId) -> String {
    format!("cor_{}", request_id.unique())
}

/// The master catalogue's `type` for a status.
fn error_type(status: StatusCode) -> &'static str {
    match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => "authentication_error",
        StatusCode::TOO_MANY_REQUESTS => "rate_limit_error",
        s if s.is_server_error() => "api_error",
        _ => "invalid_request_error",
    }
}

/// 429, 500 and 503 may succeed on retry with the same body and key; every
/// other 4xx will not succeed unchanged (seed 001, Status map and retry).
fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

pub fn render(problem: &Problem, request_id: &RequestId) -> Value {
    let retryable = problem
        .retryable
        .unwrap_or_else(|| retryable(problem.status));
    let mut error = json!({
        "code": problem.code,
        "message": problem.message,
        "type": error_type(problem.status),
        "correlation_id": correlation_id(request_id),
        "retryable": retryable,
    });
    if !problem.detail.is_empty() {
        error["detail"] = json!(problem.detail);
    }
    if let Some(ms) = problem.retry_after_ms.filter(|_| retryable) {
        error["retry_after_ms"] = json!(ms);
    }
    json!({ "error": error })
}

/// The longest caller's `X-Request-Id` echoed back.
pub const MAX_ECHOED_REQUEST_ID: usize = 128;

/// A caller's `X-Request-Id` is echoed only when it looks like an id: at
/// most 128 of `A-Z a-z 0-9 - _ . :`. Anything else (too long to be one,
/// or carrying text a log reader would be misled by) is replaced with the
/// hub's own.
fn echoable(id: &[u8]) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ECHOED_REQUEST_ID
        && id
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

/// Sets the hub's id headers. Wraps the whole surface, outside the layer
/// that assigns request ids, so it sees every response, timeouts included.
#[derive(Clone, Copy)]
pub struct IdHeaders;

impl Hook for IdHeaders {
    /// The caller's own `X-Request-Id`, when it may be echoed.
    type Carry = Option<HeaderValue>;

    fn before(&self, request: &mut Request) -> Self::Carry {
        request
            .headers()
            .get(&X_REQUEST_ID)
            .filter(|v| echoable(v.as_bytes()))
            .cloned()
    }

    fn after(&self, echoed: Self::Carry, response: &mut Response) {
        let Some(own) = response
            .headers()
            .get(lendhub_http::request_id::HEADER)
            .cloned()
        else {
            return;
        };
        if !response.status().is_success()
            && let Ok(id) = own.to_str()
            && let Ok(value) =
                HeaderValue::from_str(&format!("cor_{}", id.strip_prefix("req_").unwrap_or(id)))
        {
            response.headers_mut().insert(CORRELATION, value);
        }
        response
            .headers_mut()
            .insert(X_REQUEST_ID, echoed.unwrap_or(own));
    }
}
