//! `POST /partner/v1/mcp`: the read-only partner MCP tier over Streamable
//! HTTP with JSON responses (one JSON-RPC message in, one out), protocol
//! revision 2025-06-18. Failures use the hub envelope and HTTP statuses the
//! seed names (`mcp_method_not_found` 404, `mcp_tool_not_found` 404,
//! `mcp_invalid_params` 422, `validation_failed` 422 for a missing `method`),
//! not JSON-RPC error objects.

mod tools;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::auth::Caller;
use super::error::PartnerError;
use crate::state::HubState;

pub use tools::TOOLS;

pub use crate::mcp_protocol::PROTOCOL_VERSION;

fn invalid_params(field: &str, reason: &str) -> PartnerError {
    PartnerError::McpInvalidParams(vec![lendhub_http::FieldIssue::new(field, reason)])
}

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
    State(state): State<HubState>,
    Caller(caller): Caller,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PartnerError> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|o| state.partner.mcp_origins.iter().any(|a| a == o));
        if !allowed {
            return Err(PartnerError::OriginNotAllowed);
        }
    }
    let message = read_json(&headers, &body)?;
    let Value::Object(message) = message else {
        return Err(PartnerError::invalid("", "must_be_object"));
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(PartnerError::invalid("jsonrpc", "must_be_2.0"));
    }
    let method = match message.get("method") {
        None => return Err(PartnerError::invalid("method", "required")),
        Some(Value::String(m)) => m.as_str(),
        Some(_) => return Err(PartnerError::invalid("method", "invalid_type")),
    };
    let params = match message.get("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p.clone(),
        Some(_) => return Err(invalid_params("params", "must_be_object")),
    };
    // A notification gets no response body.
    let Some(id) = message.get("id").cloned() else {
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    let result = match method {
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
        _ => return Err(PartnerError::McpMethodNotFound(method.to_owned())),
    };
    Ok(Json(json!({ "jsonrpc": "2.0", "id": id, "result": result })).into_response())
}

fn read_json(headers: &HeaderMap, body: &[u8]) -> Result<Value, PartnerError> {
    let Some(content_type) = headers.get(header::CONTENT_TYPE) else {
        return Err(PartnerError::MissingContentType);
    };
    let essence = content_type
        .to_str()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if essence != "application/json" {
        return Err(PartnerError::UnsupportedJsonMediaType);
    }
    serde_json::from_slice(body).map_err(|e| PartnerError::InvalidJson(e.to_string()))
}

fn initialize(params: &Map<String, Value>) -> Value {
    let version = crate::mcp_protocol::negotiate(params);
    json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": { "name": "lendhub-partner", "title": "lendhub partner ring", "version": env!("CARGO_PKG_VERSION") },
        "instructions": "Read-only tools for lendhub partners. Each tool needs a scope; tools/list shows the ones your token's scopes allow. See /partner/v1/auth.md.",
    })
}
