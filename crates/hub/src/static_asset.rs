//! Files the binary carries and serves as they are (the support widget's
//! script and stylesheet, the dashboard's script), each with a strong ETag
//! from its bytes so a browser revalidates cheaply.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

pub struct Asset {
    body: &'static str,
    content_type: &'static str,
    etag: String,
}

pub fn asset(body: &'static str, content_type: &'static str) -> Asset {
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

/// The asset, or 304 when the browser's copy (`If-None-Match`) is current.
pub fn serve(asset: &Asset, headers: &HeaderMap) -> Response {
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
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            cache,
        ],
        asset.body,
    )
        .into_response()
}
