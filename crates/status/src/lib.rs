//! The status page at `{status_url}` (issue #18): the health of each
//! component from live probes, incidents and maintenance windows written by
//! operators, 90 days of history, Statuspage's `summary.json` and an Atom
//! feed. It runs on its own listener and answers from memory, so it stays up
//! and says so when the database is down.

mod pages;
pub mod prober;
mod state;
mod summary;

use axum::Router;
use axum::routing::get;

pub use state::{ComponentState, Settings, Snapshot, StatusState, Target};

pub fn router(state: StatusState) -> Router {
    Router::new()
        .route("/", get(pages::index))
        .route("/incidents/{id}", get(pages::incident))
        .route("/history.atom", get(pages::feed))
        .route("/api/v2/summary.json", get(summary::summary))
        .route("/api/v2/status.json", get(summary::status))
        .route("/api/v2/components.json", get(summary::components_json))
        .route("/api/v2/incidents.json", get(summary::incidents))
        .route(
            "/api/v2/scheduled-maintenances.json",
            get(summary::maintenances),
        )
        .fallback(pages::not_found)
        .with_state(state)
}
