//! Webhook delivery: the network policy that keeps deliveries off private
//! networks, the signed sender, and the outbox worker that drives retries.

pub mod policy;
pub mod sender;
pub mod worker;

/// The purpose under which endpoint secrets are sealed at rest.
pub const SECRET_PURPOSE: &str = "webhook-endpoint-secret";
