//! HTTP plumbing shared by every surface: request ids, the problem type that
//! every non-2xx response is rendered from, the JSON body extractor, the
//! Idempotency-Key header and the idempotent-write runner, and the
//! per-request log line.

pub mod access_log;
pub mod headers;
pub mod idempotency;
pub mod json;
pub mod oauth_form;
pub mod openapi;
pub mod problem;
pub mod request_id;

pub use problem::{FieldIssue, Problem};
pub use request_id::RequestId;
