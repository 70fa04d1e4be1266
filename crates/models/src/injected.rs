//! The failures a model server is told to show, through its admin
//! endpoints: an outage (every answer a given status) and a delay (every
//! answer that much later), each until it is lifted.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRef, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::put;
use axum::{Json, Router};
use parking_lot::Mutex;
use serde::Deserialize;
use serde_json::json;

/// What is injected now; shared by a server's handlers.
#[derive(Clone, Default)]
pub struct Injected(Arc<Mutex<Faults>>);

#[derive(Clone, Copy, Default)]
struct Faults {
    outage: Option<StatusCode>,
    delay: Option<Duration>,
    /// Requests answered with the outage's status since it began, so a
    /// test can tell a client asked while the server was down.
    refused: u64,
}

impl Injected {
    /// Waits out an injected delay; then the injected outage's status, if
    /// one is on.
    pub async fn apply(&self) -> Option<StatusCode> {
        let delay = self.0.lock().delay;
        if let Some(delay) = delay {
            tokio::time::sleep(delay).await;
        }
        let mut faults = self.0.lock();
        if faults.outage.is_some() {
            faults.refused += 1;
        }
        faults.outage
    }

    /// `PUT`/`DELETE /_model/outage` (`{"status": 503}`, any 4xx or 5xx;
    /// `GET` answers it with how many requests it has refused) and
    /// `/_model/delay` (`{"ms": 2000}`, at most a minute).
    pub fn routes<S>() -> Router<S>
    where
        S: Clone + Send + Sync + 'static,
        Injected: FromRef<S>,
    {
        Router::new()
            .route(
                "/_model/outage",
                put(set_outage).delete(end_outage).get(show_outage),
            )
            .route("/_model/delay", put(set_delay).delete(end_delay))
    }
}

#[derive(Deserialize)]
struct Outage {
    status: u16,
}

async fn set_outage(State(injected): State<Injected>, Json(outage): Json<Outage>) -> Response {
    match StatusCode::from_u16(outage.status) {
        Ok(status) if status.is_client_error() || status.is_server_error() => {
            let mut faults = injected.0.lock();
            faults.outage = Some(status);
            faults.refused = 0;
            StatusCode::NO_CONTENT.into_response()
        }
        _ => (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({ "error": "status must be 4xx or 5xx" })),
        )
            .into_response(),
    }
}

async fn show_outage(State(injected): State<Injected>) -> Response {
    let faults = *injected.0.lock();
    Json(json!({
        "status": faults.outage.map(|s| s.as_u16()),
        "refused": faults.refused,
    }))
    .into_response()
}

async fn end_outage(State(injected): State<Injected>) -> Response {
    injected.0.lock().outage = None;
    StatusCode::NO_CONTENT.into_response()
}

#[derive(Deserialize)]
struct Delay {
    ms: u64,
}

async fn set_delay(State(injected): State<Injected>, Json(delay): Json<Delay>) -> Response {
    injected.0.lock().delay = Some(Duration::from_millis(delay.ms.min(60_000)));
    StatusCode::NO_CONTENT.into_response()
}

async fn end_delay(State(injected): State<Injected>) -> Response {
    injected.0.lock().delay = None;
    StatusCode::NO_CONTENT.into_response()
}
