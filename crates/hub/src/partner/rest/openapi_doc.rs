//! `GET /openapi.json`: the partner ring's OpenAPI 3.1 document — the token
//! plane, the MCP tier and the REST tier as this deployment serves it —
//! generated from the registered routes once, served to anyone.

use std::sync::LazyLock;

use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::caller::Admitted;

static DOCUMENT: LazyLock<String> = LazyLock::new(|| {
    crate::openapi::openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| unreachable!("the generated document serialises: {e}"))
});

/// The partner ring's OpenAPI 3.1 document.
#[utoipa::path(get, operation_id = "openapiDocument", path = "/openapi.json", tag = "meta",
    responses((status = 200, description = "this document", content_type = "application/json"),
        (status = 429, description = "rate_limited"),
        (status = 503, description = "service_unavailable: the REST tier is switched off")))]
pub async fn get(_admitted: Admitted) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        DOCUMENT.as_str(),
    )
        .into_response()
}
