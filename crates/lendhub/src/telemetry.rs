//! Logs (text or JSON lines) and the Prometheus recorder.

use std::sync::OnceLock;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tracing_subscriber::EnvFilter;

#[derive(Clone, Copy, Debug, Default, clap::ValueEnum)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Log lines are written by a background thread, so a request never waits on
/// stderr. Nothing is dropped: a full buffer applies back-pressure instead.
/// Keep the guard until exit; dropping it flushes what is still queued.
pub fn init_logging(format: LogFormat, level: &str) -> tracing_appender::non_blocking::WorkerGuard {
    let filter = EnvFilter::try_from_env("LENDHUB_LOG").unwrap_or_else(|_| EnvFilter::new(level));
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .finish(std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
    guard
}

/// The process-wide recorder, installed on first use.
pub fn metrics() -> Option<&'static PrometheusHandle> {
    static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    HANDLE
        .get_or_init(|| PrometheusBuilder::new().install_recorder().ok())
        .as_ref()
}
