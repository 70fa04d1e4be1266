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
    sign_in: bool,
}

pub fn problem(status: StatusCode, title: &str, message: &str, sign_in: bool) -> Response {
    render(
        status,
        &Problem {
            title,
            message,
            sign_in,
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
