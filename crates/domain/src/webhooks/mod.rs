//! Webhook endpoints, their delivery retry schedule, and the signature every
//! delivery carries.

pub mod endpoint;
pub mod endpoint_request;
pub mod event_list;
pub mod signature;
