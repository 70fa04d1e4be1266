//! The server-rendered pages (askama templates under `templates/`). Every
//! value interpolated into them is HTML-escaped by askama.

use askama::Template;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

#[derive(Template)]
#[template(path = "sign_in.html")]
pub struct SignIn<'a> {
    pub client_name: &'a str,
    pub ticket: &'a str,
    pub csrf_token: &'a str,
    pub email: &'a str,
    pub error: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "consent.html")]
pub struct Consent<'a> {
    pub client_name: &'a str,
    pub email: &'a str,
    /// Each scope's name and what it lets the application do, in plain words.
    pub scopes: Vec<(&'static str, &'static str)>,
    pub ticket: &'a str,
    pub csrf_token: &'a str,
}

#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage<'a> {
    pub title: &'a str,
    pub message: &'a str,
    pub code: &'a str,
    /// A link that starts the sign-in again (a fresh `/authorize`).
    pub restart: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "end_session.html")]
pub struct EndSession<'a> {
    pub csrf_token: &'a str,
    pub client_id: Option<&'a str>,
    pub post_logout_redirect_uri: Option<&'a str>,
    pub state: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "signed_out.html")]
pub struct SignedOut;

#[derive(Template)]
#[template(path = "password_forgot.html")]
pub struct PasswordForgot<'a> {
    pub csrf_token: &'a str,
    /// The sign-in transaction to go back to.
    pub ticket: Option<&'a str>,
    pub email: &'a str,
    pub error: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "password_sent.html")]
pub struct PasswordSent<'a> {
    pub email: &'a str,
    pub sign_in: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "password_reset.html")]
pub struct PasswordReset<'a> {
    pub csrf_token: &'a str,
    pub token: &'a str,
    pub error: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "password_change.html")]
pub struct PasswordChange<'a> {
    pub csrf_token: &'a str,
    pub email: &'a str,
    pub error: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "password_changed.html")]
pub struct PasswordChanged {
    /// A reset signs out everywhere; a change keeps this browser's session.
    pub signed_out_everywhere: bool,
}

/// An HTML response with `status`.
pub fn render(status: StatusCode, template: &impl Template) -> Response {
    match template.render() {
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
    }
}
