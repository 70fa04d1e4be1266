//! Every partner-ring failure and its stable code, status and message, in
//! one place (seed 001, Errors and Authentication → Partner ring).

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::problem::{Bound, Problem as FieldProblem};
use lendhub_domain::webhooks::endpoint_request::Refusal;
use lendhub_http::oauth_form::FormError;
use lendhub_http::{FieldIssue, Problem};
use lendhub_store::StoreError;

#[derive(Debug)]
pub enum PartnerError {
    /// No credentials: no `Authorization` header, no client credentials.
    MissingApiKey,
    /// Client credentials that are wrong, unknown, malformed or for the wrong environment.
    InvalidApiKey(&'static str),
    /// A publishable key (`pk_…`) where a secret credential is needed.
    SecretKeyRequired,
    /// A bearer token that is malformed, forged, or not one of ours.
    Unauthenticated(&'static str),
    TokenExpired,
    TokenRevoked,
    AudienceMismatch,
    /// The token lacks a scope the operation needs.
    InsufficientScope(&'static str),
    /// A token request asked for a scope the client does not hold.
    ScopeNotGranted(String),
    AccountSuspended,
    MissingContentType,
    UnsupportedMediaType,
    Validation(Vec<FieldIssue>),
    /// An `Origin` the MCP endpoint is not configured to accept.
    OriginNotAllowed,
    InvalidJson(String),
    /// A JSON endpoint sent something else.
    UnsupportedJsonMediaType,
    McpMethodNotFound(String),
    McpToolNotFound(String),
    McpInvalidParams(Vec<FieldIssue>),
    /// Over the project's rate or concurrency limit.
    RateLimited {
        retry_after_ms: u64,
    },
    /// A REST-tier endpoint this deployment does not serve (yet).
    PlannedTier,
    /// No such object for this caller (unknown, another's, or a cursor of
    /// another kind).
    NotFound(&'static str),
    WebhookUrlInvalid(FieldIssue),
    WebhookEventUnknown(Vec<FieldIssue>),
    WebhookEndpointLimit(u32),
    IdempotencyKeyReused,
    IdempotencyKeyInProgress,
    /// A change that lost a race with another; retry.
    Conflict(&'static str),
    /// A marketplace app not (or not yet) approved by the lender, in its
    /// review state.
    AppNotApproved(&'static str),
    /// The decision's offer was accepted and signed: it cannot change.
    DecisionLocked,
    /// A money-moving request's signature is missing or does not verify.
    SignatureInvalid(String),
    /// A staff capability or a feature (the test environment) is needed.
    CapabilityDenied(&'static str),
    /// A problem raised by shared plumbing (body parsing, headers), already coded.
    Shared(Problem),
    Unavailable(String),
    Internal(String),
}

/// What a 401 says in `WWW-Authenticate` beyond the resource metadata (which
/// the partner router adds, knowing its URL).
pub(crate) const CHALLENGE: &str = "Bearer";
pub(crate) const CHALLENGE_INVALID_TOKEN: &str = "Bearer error=\"invalid_token\"";

impl PartnerError {
    // One arm per error: long because it is the table of every status, code
    // and message the partner ring answers, kept whole so it reads as one table.
    pub fn problem(self) -> Problem {
        use PartnerError::*;
        fn p(status: StatusCode, code: &'static str, message: impl Into<String>) -> Problem {
            Problem::new(status, code, message)
        }
        let unauthorized = |code, message: &str, challenge| {
            p(StatusCode::UNAUTHORIZED, code, message)
                .with_header(header::WWW_AUTHENTICATE, challenge)
        };
        match self {
            MissingApiKey => unauthorized(
                "missing_api_key",
                "credentials are required: client credentials for the token plane, a bearer token elsewhere",
                CHALLENGE,
            ),
            InvalidApiKey(why) => unauthorized("invalid_api_key", why, CHALLENGE),
            SecretKeyRequired => unauthorized(
                "secret_key_required",
                "a publishable key (pk_…) identifies a project but cannot authenticate a server-side call; send a secret key (sk_…) or an access token",
                CHALLENGE,
            ),
            Unauthenticated(why) => unauthorized("unauthenticated", why, CHALLENGE_INVALID_TOKEN),
            TokenExpired => unauthorized(
                "token_expired",
                "the access token has expired; request a new one",
                CHALLENGE_INVALID_TOKEN,
            ),
            TokenRevoked => unauthorized(
                "token_revoked",
                "the access token was revoked",
                CHALLENGE_INVALID_TOKEN,
            ),
            AudienceMismatch => unauthorized(
                "audience_mismatch",
                "the access token was issued for another resource",
                CHALLENGE_INVALID_TOKEN,
            ),
            InsufficientScope(scope) => p(
                StatusCode::FORBIDDEN,
                "insufficient_scope",
                format!("this operation needs the {scope} scope"),
            )
            .with_header(
                header::WWW_AUTHENTICATE,
                &format!("Bearer error=\"insufficient_scope\", scope=\"{scope}\""),
            ),
            ScopeNotGranted(scope) => p(
                StatusCode::FORBIDDEN,
                "scope_not_granted",
                format!("the client is not granted {scope}"),
            ),
            AccountSuspended => p(
                StatusCode::FORBIDDEN,
                "account_suspended",
                "this partner account is suspended",
            ),
            MissingContentType => p(
                StatusCode::BAD_REQUEST,
                "missing_content_type",
                "a Content-Type header is required",
            ),
            UnsupportedMediaType => p(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "the body must be application/x-www-form-urlencoded",
            ),
            Validation(detail) => p(
                StatusCode::UNPROCESSABLE_ENTITY,
                "validation_failed",
                "the request is invalid; see detail",
            )
            .with_detail(detail),
            OriginNotAllowed => p(
                StatusCode::FORBIDDEN,
                "origin_not_allowed",
                "requests from this Origin are not accepted",
            ),
            InvalidJson(why) => p(
                StatusCode::BAD_REQUEST,
                "invalid_json",
                format!("the body is not valid JSON: {why}"),
            ),
            UnsupportedJsonMediaType => p(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "the body must be application/json",
            ),
            McpMethodNotFound(m) => p(
                StatusCode::NOT_FOUND,
                "mcp_method_not_found",
                format!("no method {m}"),
            ),
            McpToolNotFound(t) => p(
                StatusCode::NOT_FOUND,
                "mcp_tool_not_found",
                format!("no tool {t} for this token"),
            ),
            McpInvalidParams(detail) => p(
                StatusCode::UNPROCESSABLE_ENTITY,
                "mcp_invalid_params",
                "the params are invalid; see detail",
            )
            .with_detail(detail),
            RateLimited { retry_after_ms } => p(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                "over this project's rate limit; retry after the wait",
            )
            .retry_after_ms(retry_after_ms),
            // No retry cures it: the tier, or this endpoint of it, is
            // switched on by a deployment, not by waiting.
            PlannedTier => p(
                StatusCode::SERVICE_UNAVAILABLE,
                "service_unavailable",
                "this endpoint belongs to the REST tier and is not available on this deployment",
            )
            .retryable(false),
            NotFound(what) => p(
                StatusCode::NOT_FOUND,
                "not_found",
                format!("no such {what}"),
            ),
            WebhookUrlInvalid(issue) => p(
                StatusCode::UNPROCESSABLE_ENTITY,
                "webhook_endpoint_url_invalid",
                format!("url rejected: {}", issue.reason),
            )
            .with_detail(vec![issue]),
            WebhookEventUnknown(detail) => p(
                StatusCode::UNPROCESSABLE_ENTITY,
                "webhook_event_unknown",
                "enabled_events names an unknown event type",
            )
            .with_detail(detail),
            WebhookEndpointLimit(max) => p(
                StatusCode::UNPROCESSABLE_ENTITY,
                "webhook_endpoint_limit",
                format!("an environment may have at most {max} webhook endpoints"),
            ),
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
            .with_header(header::RETRY_AFTER, "1")
            .retryable(true),
            Conflict(why) => p(StatusCode::CONFLICT, "conflict", why),
            AppNotApproved(review) => p(
                StatusCode::CONFLICT,
                "marketplace_app_not_approved",
                format!(
                    "the marketplace app is {review}: only an app the lender approved may subscribe to events or publish signals"
                ),
            ),
            DecisionLocked => p(
                StatusCode::LOCKED,
                "decision_locked",
                "the offer was accepted and signed: the decision is locked; only the lender's operator can release it",
            ),
            SignatureInvalid(why) => p(
                StatusCode::BAD_REQUEST,
                "signature_invalid",
                format!("the request signature is invalid: {why}"),
            ),
            CapabilityDenied(why) => p(StatusCode::FORBIDDEN, "capability_denied", why),
            Shared(problem) => problem,
            Unavailable(m) => {
                tracing::warn!(error = %m, "the database or a counterparty is unavailable");
                p(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "service_unavailable",
                    "the service is temporarily unavailable; retry",
                )
                .retry_after_ms(1000)
            }
            Internal(m) => {
                tracing::error!(error = %m, "internal error");
                p(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal_error",
                    "unexpected fault; idempotent calls may be retried",
                )
            }
        }
    }

    pub fn invalid(field: &str, reason: &str) -> Self {
        PartnerError::Validation(vec![FieldIssue::new(field, reason)])
    }

    /// A webhook URL the network policy refuses, as `field` gave it.
    pub fn url_rejected(problem: FieldProblem) -> Self {
        match field_issues(vec![problem]).map(|mut issues| issues.pop()) {
            Ok(Some(issue)) => PartnerError::WebhookUrlInvalid(issue),
            Ok(None) => PartnerError::Internal("a URL refused without a reason".to_owned()),
            Err(e) => PartnerError::Internal(e),
        }
    }

    /// A form that could not be read, for the endpoints that take one.
    pub fn from_form(e: FormError, has_content_type: bool) -> Self {
        match e {
            FormError::ContentType if has_content_type => PartnerError::UnsupportedMediaType,
            FormError::ContentType => PartnerError::MissingContentType,
            FormError::Repeated(name) => PartnerError::invalid(&name, "duplicate"),
            FormError::MalformedBasic => {
                PartnerError::InvalidApiKey("malformed HTTP Basic credentials")
            }
            FormError::BothMethods => {
                PartnerError::invalid("client_secret", "conflicts_with_basic_authentication")
            }
            FormError::MissingCredentials => PartnerError::MissingApiKey,
        }
    }
}

impl IntoResponse for PartnerError {
    fn into_response(self) -> Response {
        self.problem().into_response()
    }
}

/// The one place a domain check's problems become the envelope's `detail`:
/// a bound in the field's unit is a number, a moment is RFC 3339.
fn field_issues(problems: Vec<FieldProblem>) -> Result<Vec<FieldIssue>, String> {
    problems
        .into_iter()
        .map(|p| {
            let issue = FieldIssue::new(p.field, p.reason);
            Ok(match p.bound {
                None => issue,
                Some(Bound::Int(n)) => issue.with_bound(n),
                Some(Bound::Moment(at)) => issue.with_bound(
                    at.format(&time::format_description::well_known::Rfc3339)
                        .map_err(|e| e.to_string())?,
                ),
            })
        })
        .collect()
}

impl From<Vec<FieldProblem>> for PartnerError {
    fn from(problems: Vec<FieldProblem>) -> Self {
        field_issues(problems).map_or_else(PartnerError::Internal, PartnerError::Validation)
    }
}

/// Most of a webhook request's rules answer `validation_failed`; an event
/// type that does not exist has its own code.
impl From<Refusal> for PartnerError {
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::Invalid(problems) => problems.into(),
            Refusal::UnknownEvents(problems) => field_issues(problems)
                .map_or_else(PartnerError::Internal, PartnerError::WebhookEventUnknown),
        }
    }
}

impl From<Problem> for PartnerError {
    fn from(p: Problem) -> Self {
        PartnerError::Shared(p)
    }
}

impl From<lendhub_store::CommitError> for PartnerError {
    fn from(e: lendhub_store::CommitError) -> Self {
        match e {
            lendhub_store::CommitError::IdempotencyKeyTaken => PartnerError::IdempotencyKeyReused,
            lendhub_store::CommitError::Conflict => {
                PartnerError::Conflict("the resource changed concurrently; retry")
            }
            lendhub_store::CommitError::Store(s) => s.into(),
        }
    }
}

impl From<lendhub_http::idempotency::Fault> for PartnerError {
    fn from(f: lendhub_http::idempotency::Fault) -> Self {
        PartnerError::Internal(f.0)
    }
}

impl lendhub_http::idempotency::Refusals for PartnerError {
    fn key_reused() -> Self {
        PartnerError::IdempotencyKeyReused
    }

    fn key_in_progress() -> Self {
        PartnerError::IdempotencyKeyInProgress
    }
}

impl From<crate::views::account::BalanceOverflow> for PartnerError {
    fn from(e: crate::views::account::BalanceOverflow) -> Self {
        PartnerError::Internal(e.to_string())
    }
}

impl From<crate::flows::FlowError> for PartnerError {
    fn from(e: crate::flows::FlowError) -> Self {
        use crate::flows::FlowError;
        match e {
            FlowError::NotFound(what) => PartnerError::NotFound(what),
            FlowError::Conflict(why) => PartnerError::Conflict(why),
            FlowError::DecisionLocked => PartnerError::DecisionLocked,
            FlowError::AppNotApproved(review) => PartnerError::AppNotApproved(review),
            FlowError::Validation(problems) => problems.into(),
            FlowError::Unavailable(why) => PartnerError::Unavailable(why),
            FlowError::Internal(why) => PartnerError::Internal(why),
        }
    }
}

impl From<StoreError> for PartnerError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => PartnerError::Unavailable(m),
            StoreError::Internal(m) => PartnerError::Internal(m),
        }
    }
}

impl From<lendhub_http::test_mode::Refused> for PartnerError {
    fn from(r: lendhub_http::test_mode::Refused) -> Self {
        use lendhub_http::test_mode::Refused;
        match r {
            Refused::Invalid(detail) => PartnerError::Validation(detail),
            Refused::Coded(problem) => PartnerError::Shared(problem),
            Refused::Internal(e) => PartnerError::Internal(e),
        }
    }
}
