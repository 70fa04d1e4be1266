//! Who a partner is and what it may do: client credentials and access
//! tokens, scopes, the partner ring's projects and rate limits, signed
//! requests, dashboard roles, sub-accounts and its brand on the pages.

pub mod branding;
pub mod credentials;
pub mod dashboard;
pub mod project;
pub mod ratelimit;
pub mod request_signature;
pub mod scope;
pub mod sub_account;
