//! The sandbox partner API (seed 000): tokens, fixtures, applications with a
//! deterministic decision, accept, repayments, webhook endpoints, events and
//! replay. Everything here speaks HTTP; the rules live in `lendhub-domain`,
//! the rows in `lendhub-store`.

mod auth;
mod client_cache;
pub mod clients;
mod error;
mod event_log;
mod openapi;
mod path_id;
pub mod referrals;
mod routes;
pub mod seed;
mod state;
pub mod tokens;
mod views;

pub use error::{SandboxError, render as render_problem};
pub use event_log::EndpointEventRenderer;
pub use openapi::openapi;
pub use routes::router;
pub use state::SandboxState;

/// The interface version the seed names.
pub const API_VERSION: &str = "2026-08-11.1";
