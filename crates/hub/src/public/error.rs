//! Every public-ring failure and its stable code, in one place. The public
//! ring answers with the master catalogue's codes (seed 001, Errors → Codes,
//! master catalogue), rendered in the hub envelope with their `type`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use lendhub_domain::public::enquiry::{EnquiryError, FIELDS_MAX_BYTES, FIELDS_MAX_KEYS};
use lendhub_domain::public::quote::QuoteIssue;
use lendhub_http::{FieldIssue, Problem};
use lendhub_store::StoreError;

#[derive(Debug)]
pub enum PublicError {
    Enquiry(EnquiryError),
    /// A quote input out of range or malformed.
    Validation(Vec<FieldIssue>),
    InvalidJson(String),
    MissingContentType,
    UnsupportedMediaType,
    /// The whole body is over the route's cap.
    RequestBodyTooLarge(usize),
    CmsPageNotFound,
    /// A list cursor naming no item of the list.
    ResourceNotFound(&'static str),
    /// A feature switched off by the operator.
    FeatureDisabled(&'static str),
    RateLimited {
        retry_after_ms: u64,
    },
    IdempotencyKeyReused,
    IdempotencyKeyInProgress,
    /// A problem raised by shared plumbing (the Idempotency-Key header).
    Shared(Problem),
    Unavailable(String),
    Internal(String),
}

impl PublicError {
    pub fn problem(self) -> Problem {
        use PublicError::*;
        fn p(status: StatusCode, code: &'static str, message: impl Into<String>) -> Problem {
            Problem::new(status, code, message)
        }
        let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
        match self {
            Enquiry(e) => enquiry_problem(e),
            Validation(detail) => p(
                unprocessable,
                "validation_failed",
                "the request is invalid; see detail",
            )
            .with_detail(detail),
            InvalidJson(why) => p(
                StatusCode::BAD_REQUEST,
                "invalid_json",
                format!("the body is not valid JSON: {why}"),
            ),
            MissingContentType => p(
                StatusCode::BAD_REQUEST,
                "missing_content_type",
                "a Content-Type header is required",
            ),
            UnsupportedMediaType => p(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "the body must be application/json",
            ),
            RequestBodyTooLarge(cap) => p(
                unprocessable,
                "request_body_too_large",
                format!("the request body is over its {cap}-byte cap"),
            )
            .with_detail(vec![FieldIssue::new("", "max_size").with_bound(cap)]),
            CmsPageNotFound => p(
                StatusCode::NOT_FOUND,
                "cms_page_not_found",
                "no published page has this key",
            ),
            ResourceNotFound(why) => p(StatusCode::NOT_FOUND, "resource_not_found", why),
            FeatureDisabled(what) => p(
                StatusCode::FORBIDDEN,
                "capability_denied",
                format!("{what} is not enabled on this service"),
            ),
            RateLimited { retry_after_ms } => p(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                "too many requests from this address; retry after the wait",
            )
            .retry_after_ms(retry_after_ms),
            Unavailable(m) => {
                tracing::warn!(error = %m, "the database or a counterparty is unavailable");
                p(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "temporarily_unavailable",
                    "the service is temporarily unavailable; retry",
                )
                .retry_after_ms(1000)
            }
            IdempotencyKeyReused => p(
                StatusCode::CONFLICT,
                "idempotency_key_reused",
                "this Idempotency-Key was used with a different request",
            ),
            IdempotencyKeyInProgress => p(
                StatusCode::CONFLICT,
                "idempotency_key_in_progress",
                "a request with this Idempotency-Key is still running; retry shortly",
            )
            .with_header(axum::http::header::RETRY_AFTER, "1")
            .retryable(true),
            Shared(problem) => problem,
            Internal(m) => {
                tracing::error!(error = %m, "internal error");
                p(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "server_error",
                    "unexpected fault",
                )
            }
        }
    }

    pub fn quote(issues: Vec<QuoteIssue>) -> Self {
        PublicError::Validation(issues.into_iter().map(quote_issue).collect())
    }
}

/// A quote issue as a field issue; the bound is numeric in the field's unit.
pub fn quote_issue(i: QuoteIssue) -> FieldIssue {
    let issue = FieldIssue::new(i.field, i.reason);
    match i.bound {
        Some(b) => match b.parse::<f64>() {
            Ok(n) if n.fract() == 0.0 => issue.with_bound(n as i64),
            Ok(n) => issue.with_bound(n),
            Err(_) => issue.with_bound(b),
        },
        None => issue,
    }
}

fn enquiry_problem(e: EnquiryError) -> Problem {
    use EnquiryError::*;
    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
    let p = |code, message: &str, field: &str, reason: &str| {
        Problem::new(unprocessable, code, message).with_detail(vec![FieldIssue::new(field, reason)])
    };
    match e {
        FormRequired => p("form_required", "form is required", "form", "required"),
        FormMalformed => p(
            "validation_failed",
            "form must be a slug of 1 to 64 characters of a-z, 0-9, _ and -",
            "form",
            "pattern",
        ),
        InvalidDept => p(
            "invalid_dept",
            "dept must be one of support, payments, hardship, complaints (or omitted)",
            "dept",
            "invalid",
        ),
        FieldsRequired => p(
            "validation_failed",
            "fields is required",
            "fields",
            "required",
        ),
        TooManyFields => Problem::new(
            unprocessable,
            "payload_too_large",
            format!("fields may have at most {FIELDS_MAX_KEYS} keys"),
        )
        .with_detail(vec![
            FieldIssue::new("fields", "too_many_keys").with_bound(FIELDS_MAX_KEYS),
        ]),
        FieldsTooLarge => Problem::new(
            unprocessable,
            "payload_too_large",
            format!("fields may be at most {FIELDS_MAX_BYTES} bytes encoded"),
        )
        .with_detail(vec![
            FieldIssue::new("fields", "max_size").with_bound(FIELDS_MAX_BYTES),
        ]),
        InvalidValueType(field) => p(
            "invalid_value_type",
            "field values must be strings, integers, floats or booleans",
            &field,
            "invalid_type",
        ),
        InvalidEmail => p(
            "invalid_email",
            "fields.email is not a valid email address",
            "fields.email",
            "invalid",
        ),
        ConsentRequired => p(
            "consent_required",
            "fields.consent must be \"yes\"",
            "fields.consent",
            "required",
        ),
        UnknownField(field) => Problem::new(
            StatusCode::BAD_REQUEST,
            "unknown_field",
            format!("{field} is not a field of an enquiry"),
        )
        .with_detail(vec![FieldIssue::new(field, "unknown")]),
    }
}

impl IntoResponse for PublicError {
    fn into_response(self) -> Response {
        self.problem().into_response()
    }
}

impl From<Problem> for PublicError {
    fn from(p: Problem) -> Self {
        PublicError::Shared(p)
    }
}

impl From<lendhub_store::CommitError> for PublicError {
    fn from(e: lendhub_store::CommitError) -> Self {
        match e {
            lendhub_store::CommitError::IdempotencyKeyTaken => PublicError::IdempotencyKeyReused,
            // An enquiry has no conditional write: a conflict is a fault.
            lendhub_store::CommitError::Conflict => {
                PublicError::Internal("unexpected conflict storing an enquiry".into())
            }
            lendhub_store::CommitError::Store(s) => s.into(),
        }
    }
}

impl From<lendhub_http::idempotency::Fault> for PublicError {
    fn from(f: lendhub_http::idempotency::Fault) -> Self {
        PublicError::Internal(f.0)
    }
}

impl lendhub_http::idempotency::Refusals for PublicError {
    fn key_reused() -> Self {
        PublicError::IdempotencyKeyReused
    }

    fn key_in_progress() -> Self {
        PublicError::IdempotencyKeyInProgress
    }
}

impl From<StoreError> for PublicError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => PublicError::Unavailable(m),
            StoreError::Internal(m) => PublicError::Internal(m),
        }
    }
}
