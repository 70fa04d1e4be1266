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
    render_with(status, template, redirect_origin, false)
}

/// `render_sending_to`, for a page that loads scripts from lendhub's own
/// origin (the dashboard's Copy buttons); never an inline one.
pub fn render_with_own_scripts(
    status: StatusCode,
    template: &impl Template,
    redirect_origin: Option<&str>,
) -> Response {
    render_with(status, template, redirect_origin, true)
}

fn render_with(
    status: StatusCode,
    template: &impl Template,
    redirect_origin: Option<&str>,
    own_scripts: bool,
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
        "default-src 'none';{} style-src 'unsafe-inline'; img-src 'self'; form-action 'self'{}; frame-ancestors 'none'",
        if own_scripts {
            " script-src 'self';"
        } else {
            ""
        },
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

/// Where a page's template puts the legal footer.
pub const FOOTER_SLOT: &str = "<!--legal-footer-->";

/// The lender's legal footer (issue #51 item 2): its name, address and
/// registration, and the terms, privacy notice and complaints, rendered
/// once from the configuration.
#[derive(Template)]
#[template(path = "legal_footer.html")]
struct LegalFooter<'a> {
    lender: &'a lendhub_domain::lending::agreement::Lender,
    terms: String,
    privacy: String,
}

/// The footer's HTML, escaped; its links go to the documents on the hub at
/// `hub_url`, so it reads the same on the identity provider's and the
/// status page's own origins.
pub fn legal_footer(
    lender: &lendhub_domain::lending::agreement::Lender,
    hub_url: &str,
) -> std::sync::Arc<str> {
    LegalFooter {
        lender,
        terms: format!("{hub_url}{}", crate::apply::TERMS_PATH),
        privacy: format!("{hub_url}{}", crate::apply::PRIVACY_PATH),
    }
    .render()
    .unwrap_or_default()
    .into()
}

/// Puts the legal footer into every page for people that has the slot for
/// it. It is the same on every page and configured once, so one layer
/// places it, rather than every page's struct carrying it: an error page
/// rendered far from any state carries it too.
pub async fn with_footer(
    axum::extract::State(footer): axum::extract::State<std::sync::Arc<str>>,
    response: Response,
) -> Response {
    let is_html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html"));
    if !is_html {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // Pages are a few kilobytes; this bounds what is held, never hit.
    let Ok(bytes) = axum::body::to_bytes(body, 8 * 1024 * 1024).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let page = String::from_utf8_lossy(&bytes).replacen(FOOTER_SLOT, &footer, 1);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(page))
}

/// A partner's brand as a page shows it.
pub struct Brand {
    /// The name its customers know it by.
    pub name: Option<String>,
    /// The logo's address, width and height.
    pub logo: Option<(String, u32, u32)>,
    /// `#rrggbb`: the buttons and the header's rule.
    pub accent: Option<String>,
}

impl Brand {
    pub fn of(b: &lendhub_domain::partner::branding::Branding) -> Self {
        Self {
            name: b.display_name.clone(),
            logo: b.logo.as_ref().map(|l| {
                (
                    format!("{}{}", crate::flows::branding::LOGO_PREFIX, l.sha256),
                    l.width,
                    l.height,
                )
            }),
            accent: b.accent.clone(),
        }
    }

    /// The logo's text alternative: empty when the name is shown beside
    /// it, so a screen reader does not say it twice.
    pub fn logo_alt(&self) -> String {
        match &self.name {
            Some(_) => String::new(),
            None => "Partner logo".to_owned(),
        }
    }
}
