//! The embeddable support widget: a small dependency-free script and its
//! stylesheet, served with strong ETags so browsers revalidate cheaply.

use std::sync::LazyLock;

use axum::http::HeaderMap;
use axum::response::Response;

use crate::static_asset::{Asset, asset, serve};

static SCRIPT: LazyLock<Asset> = LazyLock::new(|| {
    asset(
        include_str!("../../assets/widget.js"),
        "text/javascript; charset=utf-8",
    )
});
static STYLESHEET: LazyLock<Asset> = LazyLock::new(|| {
    asset(
        include_str!("../../assets/widget.css"),
        "text/css; charset=utf-8",
    )
});

/// The support widget's script.
#[utoipa::path(get, operation_id = "widget_script", path = "/support/widget.js", tag = "public",
    responses((status = 200, description = "JavaScript", content_type = "text/javascript"),
        (status = 304, description = "Not modified (If-None-Match)")))]
pub async fn script(headers: HeaderMap) -> Response {
    serve(&SCRIPT, &headers)
}

/// The support widget's stylesheet.
#[utoipa::path(get, operation_id = "widget_stylesheet", path = "/support/widget.css", tag = "public",
    responses((status = 200, description = "CSS", content_type = "text/css"),
        (status = 304, description = "Not modified (If-None-Match)")))]
pub async fn stylesheet(headers: HeaderMap) -> Response {
    serve(&STYLESHEET, &headers)
}
