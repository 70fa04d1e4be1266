//! Every way the identity provider says no, with its stable code, status and
//! form, in one place (seed 001, Errors → Other error forms;
//! docs/guide/src/idp-errors.md lists them). There are four forms, chosen by who is
//! listening:
//!
//! - a **page** for the person in the browser, when there is no safe place to
//!   send them (unknown client, unregistered redirect URI, a lapsed or forged
//!   sign-in transaction);
//! - a **redirect** to the client's registered `redirect_uri` carrying
//!   `error`, `error_description`, `state` and `iss` (RFC 6749 §4.1.2.1,
//!   RFC 9207), for every other authorization error;
//! - an RFC 6749 §5.2 **JSON body** `{error, error_description}` from `/token`;
//! - an RFC 6750 §3 **bearer challenge** from `/userinfo`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_store::StoreError;
use serde_json::json;

use crate::pages::{ErrorPage, render};

/// The realm named in `WWW-Authenticate`.
pub const REALM: &str = "lendhub-sso";

/// Shown to the person as a page; never a redirect.
#[derive(Debug)]
pub enum PageError {
    /// `client_id` missing, repeated or not registered.
    UnknownClient,
    /// `redirect_uri` missing, repeated or not exactly one the client registered.
    RedirectUriMismatch,
    /// The sign-in transaction is older than 120 s, already used, or unknown.
    /// `restart` is a fresh `/authorize` for the same request, when known.
    TicketExpired {
        restart: Option<String>,
    },
    /// A form without the right CSRF token, or from a browser other than the
    /// one that started the transaction.
    CsrfInvalid {
        restart: Option<String>,
    },
    /// An end-session request that cannot be honoured.
    InvalidLogout(&'static str),
    /// A password-reset link that is used, expired or unknown.
    ResetLinkDead,
    /// A page for signed-in people, opened without a session.
    NotSignedIn,
    RouteNotFound,
    MethodNotAllowed,
    /// A form body over the provider's limit.
    TooLarge,
    Unavailable(String),
    Internal(String),
}

impl PageError {
    pub fn code(&self) -> &'static str {
        match self {
            PageError::UnknownClient => "unknown_client",
            PageError::RedirectUriMismatch => "redirect_uri_mismatch",
            PageError::TicketExpired { .. } => "sso_ticket_expired",
            PageError::CsrfInvalid { .. } => "csrf_token_invalid",
            PageError::InvalidLogout(_) => "invalid_logout_request",
            PageError::ResetLinkDead => "password_reset_link_invalid",
            PageError::NotSignedIn => "not_signed_in",
            PageError::RouteNotFound => "route_not_found",
            PageError::MethodNotAllowed => "method_not_allowed",
            PageError::TooLarge => "payload_too_large",
            PageError::Unavailable(_) => "service_unavailable",
            PageError::Internal(_) => "internal_error",
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            PageError::UnknownClient
            | PageError::RedirectUriMismatch
            | PageError::InvalidLogout(_) => StatusCode::BAD_REQUEST,
            PageError::TicketExpired { .. } | PageError::NotSignedIn => StatusCode::UNAUTHORIZED,
            PageError::ResetLinkDead => StatusCode::GONE,
            PageError::CsrfInvalid { .. } => StatusCode::FORBIDDEN,
            PageError::RouteNotFound => StatusCode::NOT_FOUND,
            PageError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            PageError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            PageError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            PageError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn words(&self) -> (&'static str, &'static str) {
        match self {
            PageError::UnknownClient => (
                "Unknown application",
                "The application that sent you here is not registered with lendhub, so you cannot sign in to it.",
            ),
            PageError::RedirectUriMismatch => (
                "Sign-in cannot continue",
                "The application asked to send you back to an address it has not registered with lendhub. For your safety you have not been sent there.",
            ),
            PageError::TicketExpired { .. } => (
                "Your sign-in has expired",
                "You have 2 minutes to sign in once you start. That time has passed, or this sign-in was already used.",
            ),
            PageError::CsrfInvalid { .. } => (
                "Sign-in cannot continue",
                "This form was not sent from the page we gave you, or this sign-in was started in another browser. Cookies must be enabled.",
            ),
            PageError::InvalidLogout(_) => (
                "Sign-out cannot continue",
                "The application's sign-out request is not valid.",
            ),
            PageError::ResetLinkDead => (
                "This link no longer works",
                "A link to reset your password works once, for 30 minutes. This one has been used, has expired, or was not copied in full. Ask for a new one.",
            ),
            PageError::NotSignedIn => (
                "You are not signed in",
                "Sign in through the application you use, then come back here to change your password.",
            ),
            PageError::RouteNotFound => ("Page not found", "There is no page at this address."),
            PageError::MethodNotAllowed => (
                "Page not found",
                "This address does not accept that kind of request.",
            ),
            PageError::TooLarge => (
                "Sign-in cannot continue",
                "The form sent was far larger than any of ours. Go back and try again.",
            ),
            PageError::Unavailable(_) => (
                "Sorry, there is a problem",
                "The service is temporarily unavailable. Try again in a moment.",
            ),
            PageError::Internal(_) => (
                "Sorry, there is a problem",
                "Something went wrong on our side. Try again later.",
            ),
        }
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        match &self {
            PageError::Unavailable(m) => tracing::warn!(error = %m, "storage unavailable"),
            PageError::Internal(m) => tracing::error!(error = %m, "internal error"),
            PageError::InvalidLogout(why) => tracing::info!(why, "end-session refused"),
            _ => {}
        }
        let (title, message) = self.words();
        let restart = match &self {
            PageError::TicketExpired { restart } | PageError::CsrfInvalid { restart } => {
                restart.as_deref()
            }
            PageError::ResetLinkDead => Some("/password/forgot"),
            _ => None,
        };
        let mut response = render(
            self.status(),
            &ErrorPage {
                title,
                message,
                code: self.code(),
                restart,
            },
        );
        if let PageError::Unavailable(_) = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

impl From<StoreError> for PageError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => PageError::Unavailable(m),
            StoreError::Internal(m) => PageError::Internal(m),
        }
    }
}

/// Authorization-endpoint error codes (RFC 6749 §4.1.2.1, OpenID Connect
/// Core §3.1.2.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthorizeErrorCode {
    InvalidRequest,
    UnsupportedResponseType,
    InvalidScope,
    AccessDenied,
    LoginRequired,
    ConsentRequired,
    RequestNotSupported,
    RequestUriNotSupported,
}

impl AuthorizeErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            AuthorizeErrorCode::InvalidRequest => "invalid_request",
            AuthorizeErrorCode::UnsupportedResponseType => "unsupported_response_type",
            AuthorizeErrorCode::InvalidScope => "invalid_scope",
            AuthorizeErrorCode::AccessDenied => "access_denied",
            AuthorizeErrorCode::LoginRequired => "login_required",
            AuthorizeErrorCode::ConsentRequired => "consent_required",
            AuthorizeErrorCode::RequestNotSupported => "request_not_supported",
            AuthorizeErrorCode::RequestUriNotSupported => "request_uri_not_supported",
        }
    }
}

/// Sent back to the client: only ever to a `redirect_uri` it registered.
#[derive(Debug)]
pub struct RedirectError {
    pub redirect_uri: String,
    pub state: Option<String>,
    pub issuer: String,
    pub code: AuthorizeErrorCode,
    pub description: String,
}

impl IntoResponse for RedirectError {
    fn into_response(self) -> Response {
        let mut pairs = vec![
            ("error", self.code.as_str().to_owned()),
            ("error_description", self.description),
        ];
        if let Some(state) = self.state {
            pairs.push(("state", state));
        }
        pairs.push(("iss", self.issuer));
        crate::redirect::to_client(&self.redirect_uri, &pairs)
    }
}

/// The token endpoint's errors (RFC 6749 §5.2), with the seed's statuses.
#[derive(Debug)]
pub enum TokenError {
    InvalidRequest(String),
    /// Client authentication failed. `basic`: the client tried HTTP Basic,
    /// so the answer must carry a Basic challenge (RFC 6749 §5.2).
    InvalidClient {
        basic: bool,
        why: &'static str,
    },
    InvalidGrant(&'static str),
    InvalidScope(String),
    UnsupportedGrantType,
    Unavailable(String),
    Internal(String),
}

impl TokenError {
    pub fn code(&self) -> &'static str {
        match self {
            TokenError::InvalidRequest(_) => "invalid_request",
            TokenError::InvalidClient { .. } => "invalid_client",
            TokenError::InvalidGrant(_) => "invalid_grant",
            TokenError::InvalidScope(_) => "invalid_scope",
            TokenError::UnsupportedGrantType => "unsupported_grant_type",
            TokenError::Unavailable(_) => "temporarily_unavailable",
            TokenError::Internal(_) => "server_error",
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            TokenError::InvalidClient { .. } => StatusCode::UNAUTHORIZED,
            TokenError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            TokenError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        }
    }

    fn description(&self) -> String {
        match self {
            TokenError::InvalidRequest(m) | TokenError::InvalidScope(m) => m.clone(),
            TokenError::InvalidClient { why, .. } | TokenError::InvalidGrant(why) => {
                (*why).to_owned()
            }
            TokenError::UnsupportedGrantType => {
                "grant_type must be authorization_code or refresh_token".to_owned()
            }
            TokenError::Unavailable(_) => "the service is temporarily unavailable; retry".into(),
            TokenError::Internal(_) => "unexpected fault".into(),
        }
    }
}

impl IntoResponse for TokenError {
    fn into_response(self) -> Response {
        match &self {
            TokenError::Unavailable(m) => tracing::warn!(error = %m, "storage unavailable"),
            TokenError::Internal(m) => tracing::error!(error = %m, "internal error"),
            _ => {}
        }
        let body = json!({"error": self.code(), "error_description": self.description()});
        let mut response = (self.status(), axum::Json(body)).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
        if let TokenError::InvalidClient { basic: true, .. } = self {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"lendhub-sso\""),
            );
        }
        if let TokenError::Unavailable(_) = self {
            headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

impl From<StoreError> for TokenError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => TokenError::Unavailable(m),
            StoreError::Internal(m) => TokenError::Internal(m),
        }
    }
}

/// The UserInfo endpoint's bearer-token errors (RFC 6750 §3).
#[derive(Debug)]
pub enum BearerError {
    /// No token at all: a bare challenge, no error code (RFC 6750 §3.1).
    Missing,
    /// Malformed, unknown, expired or revoked.
    InvalidToken(&'static str),
    /// The token sent two ways at once (RFC 6750 §2).
    InvalidRequest(&'static str),
    Unavailable(String),
    Internal(String),
}

impl IntoResponse for BearerError {
    fn into_response(self) -> Response {
        let (status, code, description, challenge) = match &self {
            BearerError::Missing => (
                StatusCode::UNAUTHORIZED,
                "invalid_request",
                "a bearer access token is required".to_owned(),
                format!("Bearer realm=\"{REALM}\""),
            ),
            BearerError::InvalidToken(why) => (
                StatusCode::UNAUTHORIZED,
                "invalid_token",
                (*why).to_owned(),
                format!(
                    "Bearer realm=\"{REALM}\", error=\"invalid_token\", error_description=\"{why}\""
                ),
            ),
            BearerError::InvalidRequest(why) => (
                StatusCode::BAD_REQUEST,
                "invalid_request",
                (*why).to_owned(),
                format!("Bearer realm=\"{REALM}\", error=\"invalid_request\""),
            ),
            BearerError::Unavailable(m) => {
                tracing::warn!(error = %m, "storage unavailable");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "temporarily_unavailable",
                    "the service is temporarily unavailable; retry".to_owned(),
                    String::new(),
                )
            }
            BearerError::Internal(m) => {
                tracing::error!(error = %m, "internal error");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "server_error",
                    "unexpected fault".to_owned(),
                    String::new(),
                )
            }
        };
        let body = json!({"error": code, "error_description": description});
        let mut response = (status, axum::Json(body)).into_response();
        if let Ok(v) = HeaderValue::from_str(&challenge)
            && !challenge.is_empty()
        {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
        response
    }
}

impl From<StoreError> for BearerError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => BearerError::Unavailable(m),
            StoreError::Internal(m) => BearerError::Internal(m),
        }
    }
}

/// Any of the four forms, for handlers that may answer in more than one.
#[derive(Debug)]
pub enum IdpError {
    Page(PageError),
    Redirect(RedirectError),
}

impl IntoResponse for IdpError {
    fn into_response(self) -> Response {
        match self {
            IdpError::Page(e) => e.into_response(),
            IdpError::Redirect(e) => e.into_response(),
        }
    }
}

impl From<PageError> for IdpError {
    fn from(e: PageError) -> Self {
        IdpError::Page(e)
    }
}

impl From<RedirectError> for IdpError {
    fn from(e: RedirectError) -> Self {
        IdpError::Redirect(e)
    }
}

impl From<StoreError> for IdpError {
    fn from(e: StoreError) -> Self {
        IdpError::Page(e.into())
    }
}

/// Gives a body to error responses that left a layer or the router without
/// one (unknown route, wrong method, timeout, panic), or with axum's plain
/// text (a body over the limit): JSON on the two machine endpoints, a page
/// everywhere else.
pub async fn finish(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let machine = matches!(request.uri().path(), "/token" | "/userinfo");
    let response = next.run(request).await;
    let status = response.status();
    // The provider's own answers are JSON or HTML; plain text is axum's.
    let own_body = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|ct| !ct.as_bytes().starts_with(b"text/plain"));
    if !(status.is_client_error() || status.is_server_error()) || own_body {
        return response;
    }
    if machine {
        let (code, description) = match status {
            StatusCode::NOT_FOUND => ("invalid_request", "no such route"),
            StatusCode::METHOD_NOT_ALLOWED => ("invalid_request", "method not allowed"),
            StatusCode::PAYLOAD_TOO_LARGE => ("invalid_request", "the request body is over 64 KiB"),
            StatusCode::SERVICE_UNAVAILABLE => (
                "temporarily_unavailable",
                "the service is temporarily unavailable; retry",
            ),
            s if s.is_server_error() => ("server_error", "unexpected fault"),
            _ => ("invalid_request", "invalid request"),
        };
        let mut out = (
            status,
            axum::Json(json!({"error": code, "error_description": description})),
        )
            .into_response();
        for (name, value) in response.headers() {
            if name != header::CONTENT_LENGTH && name != header::CONTENT_TYPE {
                out.headers_mut().insert(name.clone(), value.clone());
            }
        }
        return out;
    }
    let page = match status {
        StatusCode::NOT_FOUND => PageError::RouteNotFound,
        StatusCode::METHOD_NOT_ALLOWED => PageError::MethodNotAllowed,
        StatusCode::PAYLOAD_TOO_LARGE => PageError::TooLarge,
        StatusCode::SERVICE_UNAVAILABLE => PageError::Unavailable("timed out".into()),
        _ => PageError::Internal(format!("{status} without a body")),
    };
    let mut out = page.into_response();
    *out.status_mut() = status;
    for (name, value) in response.headers() {
        if name != header::CONTENT_LENGTH && name != header::CONTENT_TYPE {
            out.headers_mut().insert(name.clone(), value.clone());
        }
    }
    out
}

/// Headers every response carries: pages are not framed, cached or sniffed,
/// and no URL (a ticket id, a code) leaks in `Referer`.
pub async fn security_headers(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'",
        ),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}
