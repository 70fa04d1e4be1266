//! Partners' logos, served from lendhub by the SHA-256 of their bytes
//! (issue #51 item 2): only the PNG and JPEG files the dashboard accepted,
//! with the type their bytes were checked to be, never sniffed, never run.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::flows::Context;
use crate::flows::branding::{LOGO_PREFIX, logo};

pub fn router(flows: Context) -> Router {
    Router::new()
        .route(&format!("{LOGO_PREFIX}{{sha256}}"), get(serve))
        .with_state(flows)
}

/// `GET /brand/logos/{sha256}`: a logo; the address changes with the
/// bytes, so it is cached for good.
async fn serve(State(flows): State<Context>, Path(sha256): Path<String>) -> Response {
    match logo(&flows, &sha256).await {
        Ok(Some((content_type, bytes))) => {
            let kind = match content_type.as_str() {
                "image/png" => "image/png",
                "image/jpeg" => "image/jpeg",
                _ => return StatusCode::NOT_FOUND.into_response(),
            };
            (
                [
                    (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
                    (
                        header::X_CONTENT_TYPE_OPTIONS,
                        HeaderValue::from_static("nosniff"),
                    ),
                    (
                        header::CONTENT_SECURITY_POLICY,
                        HeaderValue::from_static("default-src 'none'; sandbox"),
                    ),
                    (
                        header::CACHE_CONTROL,
                        HeaderValue::from_static("public, max-age=31536000, immutable"),
                    ),
                    (
                        axum::http::HeaderName::from_static("cross-origin-resource-policy"),
                        HeaderValue::from_static("same-site"),
                    ),
                ],
                bytes,
            )
                .into_response()
        }
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "serving a logo");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
    }
}
