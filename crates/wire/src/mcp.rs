//! What both MCP servers of the hub (the partner tier and the public
//! server) agree on: the protocol revision they speak, how a client's offer
//! is answered, and how a JSON-RPC message is read. Each server answers a
//! malformed message in its own convention (the partner ring with the hub
//! envelope and HTTP statuses, the public server with JSON-RPC error
//! objects); what counts as malformed, and in which order it is checked, is
//! decided here once.

use http::{HeaderMap, header};
use serde_json::{Map, Value};

/// One JSON-RPC 2.0 request or notification.
#[derive(Debug, PartialEq)]
pub struct Message {
    /// `None` for a notification, which gets no response body.
    pub id: Option<Value>,
    pub method: String,
    pub params: Map<String, Value>,
}

/// Why a body is not read at all.
#[derive(Debug, PartialEq)]
pub enum ContentTypeRefused {
    Missing,
    /// A `Content-Type` other than `application/json`.
    Unsupported,
}

/// Why a message could not be read, in the order the checks run.
#[derive(Debug, PartialEq)]
pub enum Malformed {
    /// The body is not JSON; the parser's words.
    NotJson(String),
    /// JSON, but not an object (a batch, a string, …).
    NotAnObject,
    /// `jsonrpc` is missing or not `"2.0"`.
    NotJsonRpc2 {
        id: Option<Value>,
    },
    MethodMissing {
        id: Option<Value>,
    },
    MethodNotAString {
        id: Option<Value>,
    },
    /// `params` present but neither an object nor null.
    ParamsNotAnObject {
        id: Option<Value>,
    },
}

/// The `Content-Type` must be `application/json` (parameters allowed).
pub fn check_content_type(headers: &HeaderMap) -> Result<(), ContentTypeRefused> {
    let value = headers
        .get(header::CONTENT_TYPE)
        .ok_or(ContentTypeRefused::Missing)?;
    let essence = value.to_str().unwrap_or("").split(';').next().unwrap_or("");
    if essence.trim().eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(ContentTypeRefused::Unsupported)
    }
}

/// Reads one message from a body whose content type was checked.
pub fn parse(body: &[u8]) -> Result<Message, Malformed> {
    let value: Value =
        crate::strict_json::from_slice(body).map_err(|e| Malformed::NotJson(e.to_string()))?;
    let Value::Object(mut message) = value else {
        return Err(Malformed::NotAnObject);
    };
    // JSON-RPC 2.0 §4: an id is a string, a number or null; any other is
    // no request's id, so the error answers to none.
    let id = match message.remove("id") {
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(id),
        Some(_) => return Err(Malformed::NotJsonRpc2 { id: None }),
        None => None,
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Malformed::NotJsonRpc2 { id });
    }
    let method = match message.remove("method") {
        None => return Err(Malformed::MethodMissing { id }),
        Some(Value::String(m)) => m,
        Some(_) => return Err(Malformed::MethodNotAString { id }),
    };
    let params = match message.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => return Err(Malformed::ParamsNotAnObject { id }),
    };
    Ok(Message { id, method, params })
}

/// The revision both servers speak.
pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// Older revisions a client may ask for and get (the same message shapes here).
const OLDER_VERSIONS: &[&str] = &["2025-03-26", "2024-11-05"];

/// The revision to answer `initialize` with: an older one the client asked
/// for, else ours (also for a newer offer, as the protocol prescribes).
pub fn negotiate(params: &Map<String, Value>) -> &'static str {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    OLDER_VERSIONS
        .iter()
        .find(|v| Some(**v) == asked)
        .copied()
        .unwrap_or(PROTOCOL_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_message_is_read_and_each_fault_named_in_order() {
        let ok = parse(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#);
        assert_eq!(
            ok,
            Ok(Message {
                id: Some(json!(7)),
                method: "tools/list".into(),
                params: Map::new()
            })
        );
        let note =
            parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":null}"#);
        assert!(note.is_ok_and(|m| m.id.is_none()));
        assert!(matches!(parse(b"{"), Err(Malformed::NotJson(_))));
        assert_eq!(parse(b"[]"), Err(Malformed::NotAnObject));
        assert_eq!(
            parse(br#"{"id":1,"method":"ping"}"#),
            Err(Malformed::NotJsonRpc2 { id: Some(json!(1)) })
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":1}"#),
            Err(Malformed::MethodMissing { id: Some(json!(1)) })
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","method":5}"#),
            Err(Malformed::MethodNotAString { id: None })
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":"a","method":"ping","params":[1]}"#),
            Err(Malformed::ParamsNotAnObject {
                id: Some(json!("a"))
            })
        );
    }

    #[test]
    fn only_json_is_read() {
        let with = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(
                header::CONTENT_TYPE,
                v.parse().unwrap_or(header::HeaderValue::from_static("x")),
            );
            h
        };
        assert_eq!(
            check_content_type(&HeaderMap::new()),
            Err(ContentTypeRefused::Missing)
        );
        assert_eq!(
            check_content_type(&with("text/plain")),
            Err(ContentTypeRefused::Unsupported)
        );
        assert_eq!(
            check_content_type(&with("Application/JSON; charset=utf-8")),
            Ok(())
        );
    }

    #[test]
    fn answers_older_offers_and_ours_otherwise() {
        let offer = |v: Value| {
            json!({ "protocolVersion": v })
                .as_object()
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(negotiate(&offer(json!("2025-03-26"))), "2025-03-26");
        assert_eq!(negotiate(&offer(json!("2099-01-01"))), PROTOCOL_VERSION);
        assert_eq!(negotiate(&Map::new()), PROTOCOL_VERSION);
    }
}
