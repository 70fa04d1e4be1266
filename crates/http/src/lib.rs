//! HTTP plumbing shared by every surface: the edge layer (request ids, the
//! access-log line, per-route metrics), the problem type that every non-2xx
//! response is rendered from, the JSON body extractor, the Idempotency-Key
//! header and the idempotent-write runner.

pub mod access_log;
pub mod around;
pub mod client_ip;
pub mod edge;
pub mod event_pages;
pub mod headers;
pub mod idempotency;
pub mod json;
pub mod list;
pub mod openapi;
pub mod problem;
pub mod rendered;
pub mod request_id;
pub mod route_metrics;
pub mod test_mode;

pub use edge::Edge;
/// The parsers of outside bytes, where every surface has long found them.
pub use lendhub_wire::{oauth_form, strict_json};
pub use problem::{FieldIssue, Problem};
pub use request_id::RequestId;
