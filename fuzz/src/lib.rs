//! The bodies of lendhub's fuzz targets (issue #19): one function per parser
//! that reads bytes from outside. `cargo fuzz` runs each under libFuzzer
//! (`fuzz_targets/`, feature `libfuzzer`); the workspace's tests replay the
//! committed corpus through the same functions on every test run
//! (`tests/corpus.rs`), both under one allocation bound ([`bound`]). Each
//! function panics only when a parser breaks a promise: that is what the
//! fuzzer reports.

pub mod bound;

use std::collections::HashMap;

use http::{HeaderMap, HeaderValue, header};
use lendhub_domain::idempotency;
use lendhub_domain::partner::request_signature;
use lendhub_domain::public::enquiry;
use lendhub_domain::webhooks::signature;
use lendhub_wire::{access_token, list_query as list, mcp, oauth_form, strict_json};
use serde_json::Value;

/// The most any target may hold at once for one input, above what was live
/// before it: bodies are capped before they are parsed (1 MiB at most), so
/// a parser that asks for more than this has been made to misjudge a length.
pub const MAX_ALLOCATION: usize = 16 << 20;

/// A fixed instant for the checks that read a clock.
const NOW: i64 = 1_790_000_000;

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Every surface's JSON bodies: what the strict parser accepts holds no
/// duplicate member and no refused character, and reads back the same
/// after it is written out.
pub fn json_body(data: &[u8]) {
    let Ok(value) = strict_json::from_slice(data) else {
        return;
    };
    let written = serde_json::to_vec(&value).unwrap_or_default();
    assert_eq!(
        strict_json::from_slice(&written).ok(),
        Some(value),
        "an accepted body reads back differently"
    );
}

/// The token endpoints' form bodies (sandbox, partner ring, identity
/// provider): only the parameters asked for come back, and a parameter
/// given twice is refused rather than picked.
pub fn token_form(data: &[u8]) {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-www-form-urlencoded"),
    );
    let wanted = ["grant_type", "client_id", "client_secret", "scope", "code"];
    if let Ok(form) = oauth_form::parse(&headers, data, &wanted) {
        let form: HashMap<&str, String> = form;
        assert!(form.keys().all(|k| wanted.contains(k)));
    }
}

/// The `Service-Signature` header a receiver verifies, over any body: no
/// input panics, and a header made by `sign` always verifies.
pub fn service_signature(data: &[u8]) {
    let (head, body) = split(data);
    let Some(head) = text(head) else { return };
    let _ = signature::verify("whsec_fuzz", head, body, NOW);
    let signed = signature::sign("whsec_fuzz", NOW, body);
    assert_eq!(signature::verify("whsec_fuzz", &signed, body, NOW), Ok(()));
}

/// A money-moving request's `Service-Request-Signature`: parsed and
/// verified against a fixed key, whatever its timestamp or bytes.
pub fn request_signature(data: &[u8]) {
    let (head, body) = split(data);
    let Some(head) = text(head) else { return };
    let Ok(parsed) = request_signature::parse(head) else {
        return;
    };
    let request = request_signature::Signed {
        method: "POST",
        path_and_query: "/partner/v1/payments/pay_x/refund",
        idempotency_key: "fuzz-key-0001",
        body,
    };
    let _ = request_signature::verify(&[7; 32], &parsed, &request, NOW);
}

/// A list's query: `limit`, the two cursors and a filter.
pub fn list_query(data: &[u8]) {
    let Some(query) = text(data) else { return };
    if let Ok(request) = list::parse(Some(query), list::DEFAULT_LIMIT, &["status"]) {
        assert!((1..=list::MAX_LIMIT).contains(&request.page.limit));
        assert!(request.cursors().count() <= 1, "both cursors taken");
    }
}

/// `Idempotency-Key` as a header brings it: a key is accepted only if it
/// is 8 to 128 printable ASCII characters without a space.
pub fn idempotency_key(data: &[u8]) {
    let Ok(value) = HeaderValue::from_bytes(data) else {
        return;
    };
    let Ok(key) = value.to_str() else { return };
    if idempotency::valid_key(key) {
        assert!((8..=128).contains(&key.len()));
        assert!(key.bytes().all(|b| b.is_ascii_graphic()));
    }
}

/// A partner access token (EdDSA JWT): its header is read, then its
/// signature and claims against a fixed key, as the partner ring does
/// before it looks at expiry, issuer and audience.
pub fn partner_jwt(data: &[u8]) {
    let Some(token) = text(data) else { return };
    if access_token::key_id(token).is_ok() {
        let _ = access_token::signed_claims(token, &fuzz_key());
    }
}

fn fuzz_key() -> jsonwebtoken::DecodingKey {
    jsonwebtoken::DecodingKey::from_ed_der(&[9; 32])
}

/// The MCP endpoints' JSON-RPC envelope: a message that parses has a
/// method, object params and an id that is a string, a number or null.
pub fn mcp_envelope(data: &[u8]) {
    if let Ok(message) = mcp::parse(data) {
        assert!(matches!(
            message.id,
            None | Some(Value::String(_) | Value::Number(_) | Value::Null)
        ));
    }
}

/// The public ring's enquiry body, its `fields` object above all: what is
/// accepted keeps within the documented bounds.
pub fn enquiry_body(data: &[u8]) {
    let Ok(Value::Object(body)) = strict_json::from_slice(data) else {
        return;
    };
    if let Ok(e) = enquiry::validate(body) {
        assert!(e.fields.len() <= enquiry::FIELDS_MAX_KEYS);
        assert!(
            e.fields
                .values()
                .all(|v| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_)))
        );
    }
}

/// The input before its first NUL, and after it.
fn split(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[]),
    }
}

/// A target's body: one input, checked.
pub type Target = fn(&[u8]);

/// Every target by name, for the corpus replay.
pub const TARGETS: &[(&str, Target)] = &[
    ("json_body", json_body),
    ("token_form", token_form),
    ("service_signature", service_signature),
    ("request_signature", request_signature),
    ("list_query", list_query),
    ("idempotency_key", idempotency_key),
    ("partner_jwt", partner_jwt),
    ("mcp_envelope", mcp_envelope),
    ("enquiry_body", enquiry_body),
];
