//! The dashboard's refusal pages: not allowed, not found, not available.

use askama::Template;
use axum::http::{StatusCode, header};
use axum::response::Response;

use crate::html::render;

#[derive(Template)]
#[template(path = "dashboard/problem.html")]
struct Problem<'a> {
    title: &'a str,
    message: &'a str,
    /// Where to sign in, and the link's words.
    sign_in: Option<(&'a str, &'a str)>,
}

pub fn problem(status: StatusCode, title: &str, message: &str, sign_in: bool) -> Response {
    render(
        status,
        &Problem {
            title,
            message,
            sign_in: sign_in.then_some(("/dashboard/sign-in", "Sign in")),
        },
    )
}

/// Where signing out ends: what ended, and the way to sign in again at
/// `sign_in` (the dashboard's, or the operations console's).
pub fn signed_out(message: &str, sign_in: &str) -> Response {
    render(
        StatusCode::OK,
        &Problem {
            title: "You have signed out",
            message,
            sign_in: Some((sign_in, "Sign in again")),
        },
    )
}

pub(crate) fn forbidden(message: &str) -> Response {
    problem(StatusCode::FORBIDDEN, "Not allowed", message, false)
}

pub fn unavailable() -> Response {
    let mut r = problem(
        StatusCode::SERVICE_UNAVAILABLE,
        "The dashboard is not available just now",
        "Try again in a minute. The status page says whether something is wrong on our side.",
        false,
    );
    r.headers_mut().insert(
        header::RETRY_AFTER,
        axum::http::HeaderValue::from_static("5"),
    );
    r
}

pub(crate) fn not_found() -> Response {
    problem(
        StatusCode::NOT_FOUND,
        "Not found",
        "There is nothing with this id in this environment of your partner account.",
        false,
    )
}
