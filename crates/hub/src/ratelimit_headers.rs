//! The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers)
//! that both the partner ring's quotas and the public ring's window write.

use axum::http::HeaderName;

pub const LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
pub const REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
pub const RESET: HeaderName = HeaderName::from_static("ratelimit-reset");
pub const POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
