//! What both MCP servers of the hub (the partner tier and the public
//! server) agree on: the protocol revision they speak and how a client's
//! offer is answered.

use serde_json::{Map, Value};

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
