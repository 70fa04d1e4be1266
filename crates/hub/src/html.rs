//! Pages for people (the hosted journey, the pay page): rendered askama
//! templates with the headers every such page carries, marked so that the
//! hub's JSON error envelope leaves their bodies alone (`OwnBody`).

use askama::Template;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// A form page's status: 422 when it is shown again with what was wrong.
pub fn form_status<T>(errors: &[T]) -> StatusCode {
    if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    }
}

/// An HTML page with `status`, never cached, never framed, whose forms post
/// only to its own surface.
pub fn render(status: StatusCode, template: &impl Template) -> Response {
    render_sending_to(status, template, None)
}

/// `render`, for a page whose form ends by redirecting the browser to the
/// partner (`redirect_origin`): CSP's `form-action` governs the redirects
/// that follow a form's submission too.
pub fn render_sending_to(
    status: StatusCode,
    template: &impl Template,
    redirect_origin: Option<&str>,
) -> Response {
    let mut response = match template.render() {
        Ok(html) => (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            html,
        )
            .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "rendering a page");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                "internal error",
            )
                .into_response()
        }
    };
    response
        .extensions_mut()
        .insert(lendhub_http::problem::OwnBody);
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    let policy = format!(
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'{}; frame-ancestors 'none'",
        redirect_origin.map_or_else(String::new, |o| format!(" {o}"))
    );
    if let Ok(policy) = HeaderValue::from_str(&policy) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}
