//! The embeddable support widget: a small dependency-free script and its
//! stylesheet, served with strong ETags so browsers revalidate cheaply.

use std::sync::LazyLock;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

struct Asset {
    body: &'static str,
    content_type: &'static str,
    etag: String,
}

fn asset(body: &'static str, content_type: &'static str) -> Asset {
    let digest = Sha256::digest(body.as_bytes());
    Asset {
        body,
        content_type,
        etag: format!("\"{}\"", hex_prefix(&digest)),
    }
}

fn hex_prefix(bytes: &[u8]) -> String {
    bytes.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

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

fn serve(asset: &Asset, headers: &HeaderMap) -> Response {
    let etag = HeaderValue::from_str(&asset.etag).unwrap_or(HeaderValue::from_static("\"0\""));
    let cache = (
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600, must-revalidate"),
    );
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim() == asset.etag || t.trim() == "*")
        });
    if matches {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag), cache]).into_response();
    }
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(asset.content_type),
            ),
            (header::ETAG, etag),
            cache,
        ],
        asset.body,
    )
        .into_response()
}

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
