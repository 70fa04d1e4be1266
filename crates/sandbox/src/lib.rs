//! The sandbox partner API (seed 000): tokens, fixtures, applications with a
//! deterministic decision, accept, repayments, webhook endpoints, events and
//! replay. Everything here speaks HTTP; the rules live in `lendhub-domain`,
//! the rows in `lendhub-store`.

mod auth;
pub mod clients;
mod error;
mod event_log;
pub mod known_clients;
mod openapi;
mod path_id;
pub mod referrals;
mod routes;
pub mod seed;
mod state;
mod views;

pub use error::{SandboxError, render as render_problem};
pub use event_log::EndpointEventRenderer;
pub use routes::openapi;
pub use routes::router;
pub use state::SandboxState;

/// The interface version the seed names.
pub const API_VERSION: &str = "2026-08-11.1";
