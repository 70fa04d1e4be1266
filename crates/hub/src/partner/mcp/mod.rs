//! `POST /partner/v1/mcp`: the read-only partner MCP tier over Streamable
//! HTTP with JSON responses (one JSON-RPC message in, one out), protocol
//! revision 2025-06-18. Failures use the hub envelope and HTTP statuses the
//! seed names (`mcp_method_not_found` 404, `mcp_tool_not_found` 404,
//! `mcp_invalid_params` 422, `validation_failed` 422 for a missing `method`),
//! not JSON-RPC error objects.

mod lending;
mod reply;
pub(super) mod state;
mod tools;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use lendhub_wire::mcp::{ContentTypeRefused, Malformed, Message, check_content_type, parse};

use super::auth::Caller;
use super::error::PartnerError;
use state::McpState;

pub use tools::TOOLS;

pub use lendhub_wire::mcp::PROTOCOL_VERSION;

/// Call a read-only partner tool (JSON-RPC 2.0; `initialize`,
/// `notifications/initialized`, `ping`, `tools/list`, `tools/call`).
#[utoipa::path(post, operation_id = "mcp", path = "/mcp", tag = "mcp",
    request_body(content = Object, content_type = "application/json",
        description = "A JSON-RPC 2.0 request or notification"),
    responses((status = 200, description = "The JSON-RPC response"),
        (status = 202, description = "A notification was accepted"),
        (status = 401, description = "missing_api_key, unauthenticated, token_expired, token_revoked or audience_mismatch"),
        (status = 403, description = "account_suspended or origin_not_allowed"),
        (status = 404, description = "mcp_method_not_found or mcp_tool_not_found"),
        (status = 422, description = "validation_failed (no method) or mcp_invalid_params")))]
pub async fn mcp(
    State(state): State<McpState>,
    Caller(caller): Caller,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PartnerError> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|o| state.origins.iter().any(|a| a == o));
        if !allowed {
            return Err(PartnerError::OriginNotAllowed);
        }
    }
    check_content_type(&headers).map_err(|refused| match refused {
        ContentTypeRefused::Missing => PartnerError::MissingContentType,
        ContentTypeRefused::Unsupported => PartnerError::UnsupportedJsonMediaType,
    })?;
    let Message { id, method, params } = parse(&body).map_err(refusal)?;
    // A notification gets no response body.
    let Some(id) = id else {
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    let result = match method.as_str() {
        "initialize" => initialize(&params),
        "ping" => json!({}),
        "tools/list" => {
            // The list is serialised once per scope set; splice it in as is.
            let id = serde_json::to_string(&id).unwrap_or_else(|_| "null".into());
            let list = tools::list(&caller.scopes).get();
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{list}}}"#);
            return Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response());
        }
        "tools/call" => tools::call(&state, &caller, &params).await?,
        _ => return Err(PartnerError::McpMethodNotFound(method)),
    };
    Ok(Json(json!({ "jsonrpc": "2.0", "id": id, "result": result })).into_response())
}

/// A malformed message, in the hub envelope (the seed: a body without
/// `method` is `validation_failed` with detail field `method`).
fn refusal(malformed: Malformed) -> PartnerError {
    match malformed {
        Malformed::NotJson(why) => PartnerError::InvalidJson(why),
        Malformed::NotAnObject => PartnerError::invalid("", "must_be_object"),
        Malformed::NotJsonRpc2 { .. } => PartnerError::invalid("jsonrpc", "must_be_2.0"),
        Malformed::MethodMissing { .. } => PartnerError::invalid("method", "required"),
        Malformed::MethodNotAString { .. } => PartnerError::invalid("method", "invalid_type"),
        Malformed::ParamsNotAnObject { .. } => reply::invalid_params("params", "must_be_object"),
    }
}

fn initialize(params: &Map<String, Value>) -> Value {
    let version = lendhub_wire::mcp::negotiate(params);
    json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": { "name": "lendhub-partner", "title": "lendhub partner ring", "version": env!("CARGO_PKG_VERSION") },
        "instructions": "Read-only tools for lendhub partners. Each tool needs a scope; tools/list shows the ones your token's scopes allow. See /partner/v1/auth.md.",
    })
}
