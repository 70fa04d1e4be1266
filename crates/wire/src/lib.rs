//! What lendhub reads from the wire: every parser of bytes from outside
//! that needs no I/O — strict JSON bodies, OAuth form bodies, list queries,
//! the MCP JSON-RPC envelope and partner access tokens. The domain's own
//! parsers (signatures, Idempotency-Key, enquiry fields) live with their
//! rules in `lendhub-domain`. The fuzz targets (`fuzz/`) drive its parsers,
//! which is why it is a crate of its own: the fuzzer builds it, instrumented,
//! without the server around it.

pub mod access_token;
mod field_issue;
pub mod list_query;
pub mod mcp;
pub mod oauth_form;
pub mod strict_json;

pub use field_issue::FieldIssue;
