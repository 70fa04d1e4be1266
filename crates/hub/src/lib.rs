//! The hub (seed 001): the live partner ring under `/partner/v1` — the OAuth
//! token plane, the read-only MCP tier and the planned REST tier — and the
//! metadata documents under `/.well-known`. It runs on its own listener; the
//! error envelope, request and correlation ids are the hub's own.

mod envelope;
pub mod keys;
mod openapi;
pub mod partner;
mod state;

pub use envelope::{headers as hub_headers, render as render_problem};
pub use keys::{KeyRing, PARTNER_KEYS};
pub use openapi::openapi;
pub use state::{HubState, Urls};

/// The hub's routes: the partner ring and the authorization-server metadata.
pub fn router(state: HubState) -> axum::Router {
    partner::router(state)
}
