//! The sandbox's errors and their stable codes, mapped in one place, and the
//! sandbox envelope `{"error": {"code", "message", "request_id", "detail"?}}`.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_http::{FieldIssue, Problem, RequestId};
use lendhub_store::{CommitError, StoreError};
use serde_json::json;

#[derive(Debug)]
pub enum SandboxError {
    // Token endpoint (RFC 6749 names).
    InvalidRequest(String),
    UnsupportedGrantType,
    InvalidScope(String),
    InvalidClient {
        message: String,
        basic: bool,
    },
    // Bearer authentication.
    Unauthenticated,
    InvalidToken,
    TokenExpired,
    InsufficientScope(&'static str),
    // Resources.
    NotFound(&'static str),
    Conflict(String),
    Validation(Vec<FieldIssue>),
    WebhookUrlInvalid(FieldIssue),
    WebhookEventUnknown(Vec<FieldIssue>),
    WebhookEndpointLimit(usize),
    IdempotencyKeyReused,
    IdempotencyKeyInProgress,
    Unavailable(String),
    Internal(String),
    /// A problem raised by shared plumbing (body parsing, headers), already coded.
    Shared(Problem),
}

const REALM: &str = "Bearer realm=\"lendhub-sandbox\"";

impl SandboxError {
    // One arm per error: long because it is the table of every status, code
    // and message the sandbox answers, kept whole so it reads as one table.
    pub fn problem(self) -> Problem {
        use SandboxError::*;
        let p = |status, code, message: String| Problem::new(status, code, message);
        match self {
            InvalidRequest(m) => p(StatusCode::BAD_REQUEST, "invalid_request", m),
            UnsupportedGrantType => p(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                "only grant_type=client_credentials is supported".into(),
            ),
            InvalidScope(m) => p(StatusCode::BAD_REQUEST, "invalid_scope", m),
            InvalidClient { message, basic } => {
                let problem = p(StatusCode::UNAUTHORIZED, "invalid_client", message);
                if basic {
                    problem.with_header(header::WWW_AUTHENTICATE, "Basic realm=\"lendhub-sandbox\"")
                } else {
                    problem
                }
            }
            // The partner ring's code for the same case: one code on every ring.
            Unauthenticated => p(
                StatusCode::UNAUTHORIZED,
                "missing_api_key",
                "a bearer token is required: Authorization: Bearer <token>".into(),
            )
            .with_header(header::WWW_AUTHENTICATE, REALM),
            InvalidToken => p(
                StatusCode::UNAUTHORIZED,
                "unauthenticated",
                "the bearer token is not valid".into(),
            )
            .with_header(
                header::WWW_AUTHENTICATE,
                &format!(
                    "{REALM}, error=\"invalid_token\", error_description=\"the token is not valid\""
                ),
            ),
            TokenExpired => p(
                StatusCode::UNAUTHORIZED,
                "token_expired",
                "the bearer token has expired; request a new one".into(),
            )
            .with_header(
                header::WWW_AUTHENTICATE,
                &format!(
                    "{REALM}, error=\"invalid_token\", error_description=\"the token expired\""
                ),
            ),
            InsufficientScope(scope) => p(
                StatusCode::FORBIDDEN,
                "insufficient_scope",
                format!("this operation needs the {scope} scope"),
            )
            .with_header(
                header::WWW_AUTHENTICATE,
                &format!("{REALM}, error=\"insufficient_scope\", scope=\"{scope}\""),
            ),
            NotFound(what) => p(
                StatusCode::NOT_FOUND,
                "not_found",
                format!("no such {what}"),
            ),
            Conflict(m) => p(StatusCode::CONFLICT, "conflict", m),
            Validation(detail) => {
                let fields = detail
                    .iter()
                    .map(|d| format!("{} ({})", d.field, d.reason))
                    .collect::<Vec<_>>()
                    .join(", ");
                p(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "validation_failed",
                    format!("invalid fields: {fields}"),
                )
                .with_detail(detail)
            }
            WebhookUrlInvalid(issue) => p(
                StatusCode::UNPROCESSABLE_ENTITY,
                "webhook_endpoint_url_invalid",
                format!("url rejected: {}", issue.reason),
            )
            .with_detail(vec![issue]),
            WebhookEventUnknown(detail) => p(
                StatusCode::UNPROCESSABLE_ENTITY,
                "webhook_event_unknown",
                "enabled_events names an unknown event type".into(),
            )
            .with_detail(detail),
            WebhookEndpointLimit(max) => p(
                StatusCode::UNPROCESSABLE_ENTITY,
                "webhook_endpoint_limit",
                format!("a client may register at most {max} webhook endpoints"),
            ),
            IdempotencyKeyReused => p(
                StatusCode::CONFLICT,
                "idempotency_key_reused",
                "this Idempotency-Key was used with a different request".into(),
            ),
            IdempotencyKeyInProgress => p(
                StatusCode::CONFLICT,
                "idempotency_key_in_progress",
                "a request with this Idempotency-Key is still being processed; retry shortly"
                    .into(),
            )
            .with_header(header::RETRY_AFTER, "1"),
            Unavailable(m) => {
                tracing::warn!(error = %m, "storage unavailable");
                p(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "service_unavailable",
                    "the service is temporarily unavailable; retry with the same Idempotency-Key"
                        .into(),
                )
                .with_header(header::RETRY_AFTER, "1")
            }
            Internal(m) => {
                tracing::error!(error = %m, "internal error");
                p(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal_error",
                    "unexpected fault; idempotent calls may be retried".into(),
                )
            }
            Shared(problem) => problem,
        }
    }
}

impl IntoResponse for SandboxError {
    fn into_response(self) -> Response {
        self.problem().into_response()
    }
}

impl From<Problem> for SandboxError {
    fn from(p: Problem) -> Self {
        SandboxError::Shared(p)
    }
}

impl From<StoreError> for SandboxError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => SandboxError::Unavailable(m),
            StoreError::Internal(m) => SandboxError::Internal(m),
        }
    }
}

impl From<CommitError> for SandboxError {
    fn from(e: CommitError) -> Self {
        match e {
            CommitError::IdempotencyKeyTaken => SandboxError::IdempotencyKeyReused,
            CommitError::Conflict => {
                SandboxError::Conflict("the resource changed concurrently; retry".into())
            }
            CommitError::Store(s) => s.into(),
        }
    }
}

impl lendhub_http::idempotency::Refusals for SandboxError {
    fn key_reused() -> Self {
        SandboxError::IdempotencyKeyReused
    }

    fn key_in_progress() -> Self {
        SandboxError::IdempotencyKeyInProgress
    }
}

impl From<lendhub_http::idempotency::Fault> for SandboxError {
    fn from(fault: lendhub_http::idempotency::Fault) -> Self {
        SandboxError::Internal(fault.0)
    }
}

/// The sandbox error envelope.
pub fn render(problem: &Problem, request_id: &RequestId) -> serde_json::Value {
    let mut error = json!({ "code": problem.code, "message": problem.message, "request_id": request_id.as_str() });
    if !problem.detail.is_empty() {
        error["detail"] = json!(problem.detail);
    }
    json!({ "error": error })
}

impl From<lendhub_http::test_mode::Refused> for SandboxError {
    fn from(r: lendhub_http::test_mode::Refused) -> Self {
        use lendhub_http::test_mode::Refused;
        match r {
            Refused::Invalid(detail) => SandboxError::Validation(detail),
            Refused::Coded(problem) => SandboxError::Shared(problem),
            Refused::Internal(e) => SandboxError::Internal(e),
        }
    }
}
