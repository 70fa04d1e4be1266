//! A `Problem` is what a handler, an extractor or a layer returns for a non-2xx
//! answer. It travels in the response's extensions; one middleware per surface
//! renders it into that surface's envelope, so the envelope is built in exactly
//! one place and no response can escape without it.

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::request_id::RequestId;

pub use lendhub_wire::FieldIssue;

#[derive(Clone, Debug)]
pub struct Problem {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub detail: Vec<FieldIssue>,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// When a retry may succeed, if known; also sent as `Retry-After` (seconds, rounded up).
    pub retry_after_ms: Option<u64>,
    /// Whether the same request may succeed if sent again, where the status
    /// alone would say otherwise (a 503 that no retry will cure).
    pub retryable: Option<bool>,
}

impl Problem {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            detail: Vec::new(),
            headers: Vec::new(),
            retry_after_ms: None,
            retryable: None,
        }
    }

    /// Says whether a retry may succeed, overriding what the status implies.
    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = Some(retryable);
        self
    }

    pub fn retry_after_ms(mut self, ms: u64) -> Self {
        self.retry_after_ms = Some(ms);
        self.with_header(
            axum::http::header::RETRY_AFTER,
            &ms.div_ceil(1000).max(1).to_string(),
        )
    }

    pub fn with_detail(mut self, detail: Vec<FieldIssue>) -> Self {
        self.detail = detail;
        self
    }

    pub fn with_header(mut self, name: HeaderName, value: &str) -> Self {
        if let Ok(v) = HeaderValue::from_str(value) {
            self.headers.push((name, v));
        }
        self
    }

    /// For responses that left a layer or the router without a problem attached.
    pub fn from_status(status: StatusCode) -> Self {
        let (code, message) = match status {
            StatusCode::NOT_FOUND => ("route_not_found", "no such route"),
            StatusCode::METHOD_NOT_ALLOWED => {
                ("method_not_allowed", "method not allowed on this route")
            }
            StatusCode::PAYLOAD_TOO_LARGE => ("payload_too_large", "request body too large"),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => {
                ("unsupported_media_type", "unsupported content type")
            }
            StatusCode::SERVICE_UNAVAILABLE => {
                // The request timeout: every 503 says when to retry.
                return Self::new(status, "service_unavailable", "service unavailable")
                    .retry_after_ms(1000);
            }
            s if s.is_client_error() => ("invalid_request", "invalid request"),
            _ => ("internal_error", "internal error"),
        };
        Self::new(status, code, message)
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = self.status;
        response.extensions_mut().insert(self);
        response
    }
}

/// Turns a problem into the JSON body of one surface's envelope.
pub type Renderer = fn(&Problem, &RequestId) -> serde_json::Value;

/// Marks an error response whose body the surface rendered for people (a
/// page of the hosted application journey): the envelope leaves it alone.
#[derive(Clone, Copy, Debug)]
pub struct OwnBody;

/// Gives a non-2xx response the body of `renderer`'s envelope, from the
/// `Problem` it carries or, when it left a layer or the router without one,
/// from its status alone. Other responses pass untouched.
pub fn render_error(renderer: Renderer, request_id: &RequestId, response: Response) -> Response {
    let status = response.status();
    if status.is_success()
        || status.is_redirection()
        || status.is_informational()
        || response.extensions().get::<OwnBody>().is_some()
    {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let problem = match parts.extensions.remove::<Problem>() {
        Some(problem) => problem,
        None => {
            // A surface's own errors log their cause where it is known; a
            // bare 5xx comes from a shared layer (the timeout, the panic
            // catcher), which nothing else reports.
            if status.is_server_error() {
                tracing::error!(status = status.as_u16(), request_id = %request_id, "request failed in a shared layer");
            }
            Problem::from_status(status)
        }
    };
    let body = serde_json::to_vec(&renderer(&problem, request_id)).unwrap_or_default();
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    parts.headers.insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    for (name, value) in problem.headers {
        parts.headers.insert(name, value);
    }
    Response::from_parts(parts, Body::from(body))
}
