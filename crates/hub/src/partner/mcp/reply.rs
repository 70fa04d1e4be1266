//! What a tool call answers: a result, a failure the model reads, or the
//! parameters it got wrong.

use serde_json::{Value, json};

use crate::partner::error::PartnerError;

pub(super) fn invalid_params(field: &str, reason: &str) -> PartnerError {
    PartnerError::McpInvalidParams(vec![lendhub_http::FieldIssue::new(field, reason)])
}

pub(super) fn result(structured: Value) -> Value {
    json!({
        "content": [{ "type": "text", "text": structured.to_string() }],
        "structuredContent": structured,
        "isError": false,
    })
}

/// A tool that ran but could not answer. The MCP specification gives such
/// results text content only: `structuredContent` must match the tool's
/// `outputSchema`, which describes answers, not failures.
pub(super) fn failure(message: &str) -> Value {
    json!({
        "content": [{ "type": "text", "text": message }],
        "isError": true,
    })
}
