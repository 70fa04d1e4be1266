//! One log line and one set of metrics per request: request id, matched route,
//! status, latency and the authenticated client (never a credential).

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use crate::request_id::RequestId;

/// Set by the authentication extractor so the log line can name the caller.
#[derive(Clone, Debug, Default)]
pub struct CallerSlot(Arc<OnceLock<String>>);

impl CallerSlot {
    pub fn set(&self, client_id: &str) {
        let _ = self.0.set(client_id.to_owned());
    }
}

pub async fn log_request(
    State(surface): State<&'static str>,
    mut request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let slot = CallerSlot::default();
    request.extensions_mut().insert(slot.clone());
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |m| m.as_str().to_owned());
    let method = request.method().clone();
    let request_id = request
        .extensions()
        .get::<RequestId>()
        .cloned()
        .unwrap_or_default();
    let response = next.run(request).await;
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    let client = slot.0.get().map_or("-", String::as_str);
    tracing::info!(
        target: "access",
        surface,
        request_id = %request_id,
        method = %method,
        route = %route,
        status,
        // Microsecond resolution, so the line reads 48.682 rather than
        // 48.681999999999996.
        latency_ms = elapsed.as_micros() as f64 / 1000.0,
        client_id = client,
    );
    let labels = [
        ("surface", surface.to_owned()),
        ("route", route),
        ("method", method.to_string()),
        ("status", status.to_string()),
    ];
    metrics::counter!("http_requests_total", &labels).increment(1);
    metrics::histogram!("http_request_duration_seconds", &labels[..3])
        .record(elapsed.as_secs_f64());
    response
}
