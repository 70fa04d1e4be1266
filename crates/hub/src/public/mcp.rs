//! The public MCP server (`POST /public/v1/mcp`): Streamable HTTP with JSON
//! responses, one JSON-RPC request in and one response out, protocol
//! revision 2025-06-18. Six read-only tools answer from the pricing
//! configuration and the same quote code as the REST endpoints; none writes,
//! applies or moves money. Protocol failures are JSON-RPC errors (HTTP 200),
//! as the seed says; only HTTP-level failures (media type, size, rate) use
//! the hub envelope. `GET` gives the server card.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::catalogue;
use super::error::PublicError;
use crate::public::state::PublicState;
use lendhub_wire::mcp::{ContentTypeRefused, Malformed, Message, check_content_type, parse};

pub const SERVER_NAME: &str = "Service";
const SERVER_VERSION: &str = "1.0.0";
use lendhub_wire::mcp::PROTOCOL_VERSION;
/// A request body over this is refused before parsing.
const BODY_CAP: usize = 64 * 1024;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;

pub struct Tool {
    pub name: &'static str,
    pub alias: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    input: fn() -> Value,
    output: fn() -> Value,
}

fn no_input() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

fn list_output() -> Value {
    json!({"type": "object", "properties": {"data": {"type": "array", "items": {"type": "object"}}}, "required": ["data"]})
}

fn object_output() -> Value {
    json!({"type": "object"})
}

pub const TOOLS: [Tool; 6] = [
    Tool {
        name: "ListProducts",
        alias: "list_products",
        title: "List products",
        description: "The lender's products (Business Loan, Flex, Slice) with their pricing.",
        input: no_input,
        output: list_output,
    },
    Tool {
        name: "ProductDetails",
        alias: "product_details",
        title: "Product details",
        description: "One product by name: Business Loan, Flex or Slice.",
        input: || {
            json!({"type": "object", "properties": {"name": {"type": "string", "description": "Business Loan, Flex or Slice"}},
                   "required": ["name"], "additionalProperties": false})
        },
        output: object_output,
    },
    Tool {
        name: "GetQuote",
        alias: "get_quote",
        title: "Business Loan quote",
        description: "A Business Loan quote: amount in GBP and term in days (only the Business Loan is quotable). Returns the repayment schedule, fees, interest, total repayable and APR.",
        input: || {
            json!({"type": "object", "properties": {
                "amount": {"type": "number", "description": "Principal in GBP"},
                "term": {"type": "integer", "description": "Term in days"},
                "frequency": {"type": "string", "enum": ["weekly", "fortnightly", "monthly"]}},
                "required": ["amount", "term"], "additionalProperties": false})
        },
        output: || {
            json!({"type": "object", "properties": {
                "amount_pence": {"type": "integer"}, "term_days": {"type": "integer"},
                "total_repayable_pence": {"type": "integer"}, "apr_percent": {"type": "number"},
                "schedule": {"type": "array", "items": {"type": "object"}}},
                "required": ["amount_pence", "term_days", "total_repayable_pence", "apr_percent", "schedule"]})
        },
    },
    Tool {
        name: "EligibilityCriteria",
        alias: "eligibility_criteria",
        title: "Eligibility criteria",
        description: "Who can borrow: UK incorporated companies and LLPs, and the borrowing range.",
        input: no_input,
        output: object_output,
    },
    Tool {
        name: "HowToApply",
        alias: "how_to_apply",
        title: "How to apply",
        description: "The steps of an application, from a partner's site to funding.",
        input: no_input,
        output: object_output,
    },
    Tool {
        name: "LoyaltyTiers",
        alias: "loyalty_tiers",
        title: "Loyalty tiers",
        description: "The loyalty ladder: Bronze, Silver, Gold and Platinum, with thresholds and benefits.",
        input: no_input,
        output: list_output,
    },
];

fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name || t.alias == name)
}

fn tools_list() -> Value {
    let tools: Vec<Value> = TOOLS
        .iter()
        .map(|t| {
            json!({
                "name": t.name, "title": t.title,
                "description": format!("{} Also callable as {}.", t.description, t.alias),
                "inputSchema": (t.input)(), "outputSchema": (t.output)(),
                "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
            })
        })
        .collect();
    json!({ "tools": tools })
}

/// A JSON-RPC failure: code, message and optional data.
struct RpcError(i64, String, Option<Value>);

fn rpc_response(id: Value, outcome: Result<Value, RpcError>) -> Response {
    let body = match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(RpcError(code, message, data)) => {
            let mut error = json!({"code": code, "message": message});
            if let Some(data) = data {
                error["data"] = data;
            }
            json!({"jsonrpc": "2.0", "id": id, "error": error})
        }
    };
    Json(body).into_response()
}

fn invalid_params(detail: Value) -> RpcError {
    RpcError(
        INVALID_PARAMS,
        "invalid params".into(),
        Some(json!({"code": "validation_failed", "status": 422, "detail": detail})),
    )
}

/// The server card: who this is and what it offers.
#[utoipa::path(get, operation_id = "mcp_card", path = "/mcp", tag = "mcp",
    responses((status = 200, description = "The server card"),
        (status = 405, description = "method_not_allowed: no server-sent event stream is offered")))]
pub async fn card(headers: HeaderMap) -> Response {
    // An MCP client asking for an event stream gets 405, as the transport
    // allows; anyone else gets the card.
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if accept.contains("text/event-stream") && !accept.contains("application/json") {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let tools: Vec<Value> = TOOLS
        .iter()
        .map(|t| json!({"name": t.name, "alias": t.alias, "title": t.title, "description": t.description}))
        .collect();
    Json(json!({
        "protocolVersion": PROTOCOL_VERSION,
        "serverInfo": {"name": SERVER_NAME, "version": SERVER_VERSION},
        "transport": {"type": "streamable-http", "endpoint": format!("{}/mcp", super::PREFIX)},
        "capabilities": {"tools": {"listChanged": false}},
        "tools": tools,
    }))
    .into_response()
}

// The document's shape only; `lendhub_wire::mcp::parse` reads the message.
/// A JSON-RPC 2.0 request (with `id`) or notification (without).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct JsonRpcMessage {
    #[schema(pattern = "^2\\.0$", example = "2.0")]
    jsonrpc: String,
    /// A string or an integer; absent for a notification.
    #[schema(value_type = Option<String>, example = 1)]
    id: Option<String>,
    #[schema(example = "tools/list")]
    method: String,
    #[schema(value_type = Option<Object>)]
    params: Option<serde_json::Value>,
}

/// JSON-RPC 2.0: `initialize`, `notifications/initialized`, `ping`,
/// `tools/list`, `tools/call`.
#[utoipa::path(post, operation_id = "mcp", path = "/mcp", tag = "mcp",
    request_body(content = JsonRpcMessage, content_type = "application/json", description = "A JSON-RPC 2.0 request or notification"),
    responses((status = 200, description = "The JSON-RPC response, an error object included"),
        (status = 202, description = "A notification was accepted"),
        (status = 400, description = "Not a JSON-RPC message (parse error -32700, or invalid request -32600 for a body that is not a request object): a JSON-RPC error with id null, or the request's id"),
        (status = 415, description = "unsupported_media_type"),
        (status = 422, description = "request_body_too_large")))]
pub async fn mcp(
    State(state): State<PublicState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PublicError> {
    check_content_type(&headers).map_err(|refused| match refused {
        ContentTypeRefused::Missing => PublicError::MissingContentType,
        ContentTypeRefused::Unsupported => PublicError::UnsupportedMediaType,
    })?;
    if body.len() > BODY_CAP {
        return Err(PublicError::RequestBodyTooLarge(BODY_CAP));
    }
    let message = match parse(&body) {
        Ok(message) => message,
        Err(malformed) => return Ok(refusal(malformed)),
    };
    let Message { id, method, params } = message;
    let Some(id) = id else {
        // A notification: accepted, no body.
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    let outcome = match method.as_str() {
        "initialize" => Ok(initialize(&params)),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(tools_list()),
        "tools/call" => match call(&state, &params) {
            Ok(structured) => return Ok(tool_result(&id, &structured)),
            Err(e) => Err(e),
        },
        other => Err(RpcError(
            METHOD_NOT_FOUND,
            format!("method not found: {other}"),
            None,
        )),
    };
    Ok(rpc_response(id, outcome))
}

/// A malformed message as a JSON-RPC error object (a notification, whatever
/// its params, is still only accepted). A body that is not a JSON-RPC
/// message at all is answered 400, as the streamable HTTP transport says of
/// input the server cannot accept (and as the official SDK's server does);
/// a message with bad params is a request like any other (200).
fn refusal(malformed: Malformed) -> Response {
    let unacceptable = |id: Option<Value>, code: i64, why: String| {
        bad_request(rpc_response(
            id.unwrap_or(Value::Null),
            Err(RpcError(code, why, None)),
        ))
    };
    let invalid_request = |id: Option<Value>| {
        let why = "a request needs jsonrpc \"2.0\" and a method".into();
        unacceptable(id, INVALID_REQUEST, why)
    };
    match malformed {
        Malformed::NotJson(e) => unacceptable(None, PARSE_ERROR, format!("parse error: {e}")),
        Malformed::NotAnObject => unacceptable(
            None,
            INVALID_REQUEST,
            "a request must be a JSON object".into(),
        ),
        Malformed::NotJsonRpc2 { id }
        | Malformed::MethodMissing { id }
        | Malformed::MethodNotAString { id } => invalid_request(id),
        Malformed::ParamsNotAnObject { id: None } => StatusCode::ACCEPTED.into_response(),
        Malformed::ParamsNotAnObject { id: Some(id) } => bad_request(rpc_response(
            id,
            Err(invalid_params(
                json!([{"field": "params", "reason": "must_be_object"}]),
            )),
        )),
    }
}

/// `response`, a JSON-RPC error, as a 400 that keeps its own body (the
/// ring's error envelope leaves it alone).
fn bad_request(mut response: Response) -> Response {
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response
        .extensions_mut()
        .insert(lendhub_http::problem::OwnBody);
    response
}

fn initialize(params: &Map<String, Value>) -> Value {
    let version = lendhub_wire::mcp::negotiate(params);
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": SERVER_NAME, "version": SERVER_VERSION},
        "instructions": "Read-only facts about the lender's products, prices and how to apply. Tools never apply, write or move money.",
    })
}

/// A tool's answer: its JSON once as `structuredContent` and once as text.
/// Spliced as text, so the result is serialised once, not three times.
fn tool_result(id: &Value, structured: &str) -> Response {
    let id = serde_json::to_string(id).unwrap_or_else(|_| "null".into());
    let text = serde_json::to_string(structured).unwrap_or_else(|_| "\"\"".into());
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{structured},"isError":false}}}}"#
    );
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn no_arguments(args: &Map<String, Value>) -> Result<(), RpcError> {
    match args.keys().next() {
        Some(k) => Err(invalid_params(json!([{"field": k, "reason": "unknown"}]))),
        None => Ok(()),
    }
}

/// Runs a tool; its answer as JSON text.
fn call(state: &PublicState, params: &Map<String, Value>) -> Result<String, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid_params(json!([{"field": "name", "reason": "required"}])))?;
    let tool = find(name).ok_or_else(|| {
        RpcError(
            INVALID_PARAMS,
            format!("unknown tool: {name}"),
            Some(json!({"code": "mcp_tool_not_found", "tool": name})),
        )
    })?;
    let args = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => {
            return Err(invalid_params(
                json!([{"field": "arguments", "reason": "must_be_object"}]),
            ));
        }
    };
    let pricing = &state.ring.settings.pricing;
    if tool.name == "GetQuote" {
        let quote = get_quote(state, &args)?;
        return serde_json::to_string(&quote)
            .map_err(|_| RpcError(INTERNAL_ERROR, "internal_error".into(), None));
    }
    let result = match tool.name {
        "ListProducts" => {
            no_arguments(&args)?;
            json!({"data": catalogue::product_list(pricing)})
        }
        "ProductDetails" => product_details(pricing, &args)?,
        "EligibilityCriteria" => {
            no_arguments(&args)?;
            eligibility(pricing)
        }
        "HowToApply" => {
            no_arguments(&args)?;
            how_to_apply()
        }
        "LoyaltyTiers" => {
            no_arguments(&args)?;
            json!({"data": catalogue::loyalty_list(pricing)})
        }
        _ => return Err(RpcError(INTERNAL_ERROR, "internal_error".into(), None)),
    };
    Ok(result.to_string())
}

fn product_details(
    pricing: &lendhub_domain::public::pricing::PricingConfig,
    args: &Map<String, Value>,
) -> Result<Value, RpcError> {
    if let Some(k) = args.keys().find(|k| k.as_str() != "name") {
        return Err(invalid_params(json!([{"field": k, "reason": "unknown"}])));
    }
    let name = args
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid_params(json!([{"field": "name", "reason": "required"}])))?;
    let wanted = name.trim().to_ascii_lowercase().replace([' ', '-'], "_");
    catalogue::product_list(pricing)
        .into_iter()
        .find(|p| {
            p["id"].as_str() == Some(wanted.as_str())
                || p["name"]
                    .as_str()
                    .is_some_and(|n| n.eq_ignore_ascii_case(name.trim()))
        })
        .ok_or_else(|| invalid_params(json!([{"field": "name", "reason": "unknown_product"}])))
}

fn get_quote(
    state: &PublicState,
    args: &Map<String, Value>,
) -> Result<lendhub_domain::public::quote::Quote, RpcError> {
    if let Some(k) = args
        .keys()
        .find(|k| !matches!(k.as_str(), "amount" | "term" | "frequency"))
    {
        return Err(invalid_params(json!([{"field": k, "reason": "unknown"}])));
    }
    // Numbers or numeric strings, read exactly as the REST query is.
    let text = |key: &str| -> Option<String> {
        match args.get(key) {
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        }
    };
    let frequency = match args.get("frequency") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err(invalid_params(
                json!([{"field": "frequency", "reason": "invalid"}]),
            ));
        }
    };
    let read = catalogue::read_onetime(
        &state.ring.settings.pricing,
        text("amount").as_deref(),
        text("term").as_deref(),
        frequency.as_deref(),
    );
    let (amount, term, frequency) =
        read.map_err(|issues| invalid_params(serde_json::to_value(issues).unwrap_or_default()))?;
    catalogue::onetime(state, amount, term, frequency)
        .map_err(|_| RpcError(INTERNAL_ERROR, "internal_error".into(), None))
}

fn eligibility(pricing: &lendhub_domain::public::pricing::PricingConfig) -> Value {
    let b = &pricing.business_loan;
    json!({
        "who_can_borrow": "UK incorporated bodies corporate: private limited companies and LLPs, active at Companies House.",
        "not_eligible": ["sole traders", "partnerships", "dissolved companies"],
        "applicant": "A director of the company, who signs in and consents to identity and open-banking checks.",
        "business_loan": {
            "principal_min_pence": b.principal_min_pence,
            "principal_max_pence": b.principal_max_pence,
            "term_min_days": b.term_min_days,
            "term_max_days": b.term_max_days,
        },
        "regulation": "Business lending, outside consumer-credit regulation.",
        "decisioning": "Automated and final; partners cannot override an outcome.",
    })
}

fn how_to_apply() -> Value {
    json!({
        "steps": [
            "Start from a partner's software, or the lender's own site.",
            "Sign in as a director of the company.",
            "Confirm your identity and connect the company's bank account (open banking) for the affordability check.",
            "Give your consents and review the offer: amount, schedule, fees and total cost.",
            "Accept the offer; funds are sent by Faster Payments.",
            "Repay on the schedule by open-banking payment initiation.",
        ],
        "decision": "Most decisions are immediate; some are referred for review and resolved later.",
    })
}
