//! `GET /openapi.json`: the partner ring's OpenAPI 3.1 document — the token
//! plane, the MCP tier and the REST tier as this deployment serves it —
//! generated from the registered routes once, served to anyone.

use axum::Extension;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::caller::Admitted;

/// The rendered document, handed to the router by the hub's top, which is
/// the one module that sees every route it describes.
#[derive(Clone, Copy)]
pub struct Document(pub &'static str);

/// The partner ring's OpenAPI 3.1 document.
#[utoipa::path(get, operation_id = "openapiDocument", path = "/openapi.json", tag = "meta",
    responses((status = 200, description = "this document", content_type = "application/json"),
        (status = 429, description = "rate_limited"),
        (status = 503, description = "service_unavailable: the REST tier is switched off")))]
pub async fn get(_admitted: Admitted, Extension(document): Extension<Document>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], document.0).into_response()
}
