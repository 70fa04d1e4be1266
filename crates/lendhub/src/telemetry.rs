//! Logs (text or JSON lines) and the Prometheus recorder.

use std::io::IsTerminal;
use std::sync::OnceLock;

use lendhub_http::access_log::{self, Layout};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

use crate::config::Invalid;
use crate::log_writer::{Guard, LogWriter};

#[derive(Clone, Copy, Debug, Default, clap::ValueEnum)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// The log filter: `LENDHUB_LOG` if set, else `log.level`. A filter that does
/// not parse is a configuration error, not a warning to start up past.
pub fn log_filter(level: &str) -> Result<EnvFilter, Invalid> {
    let (key, directives) = match std::env::var("LENDHUB_LOG") {
        Ok(from_env) => ("LENDHUB_LOG", from_env),
        Err(_) => ("log.level", level.to_owned()),
    };
    // tracing reads a bare word as a target to enable at every level, so a
    // typo such as `verbose` would silently log nothing: a bare word must be
    // a level, and a target is named as `target=level`.
    if let Some(word) = directives
        .split(',')
        .map(str::trim)
        .find(|d| !d.is_empty() && !d.contains(['=', '[']) && d.parse::<LevelFilter>().is_err())
    {
        return Err(Invalid::new(
            key,
            format!(
                "{word:?} is not a level (off, error, warn, info, debug, trace); name a target as target=level"
            ),
        ));
    }
    EnvFilter::builder()
        .parse(&directives)
        .map_err(|e| Invalid::new(key, format!("{directives:?} is not a tracing filter: {e}")))
}

/// Log lines are written by a background thread (`log_writer`), so a
/// request never waits on stderr; nothing is dropped. Colour codes only when
/// stderr is a terminal, never into a file or a pipe. Keep the guard until
/// exit; dropping it flushes what is still queued.
pub fn init_logging(format: LogFormat, filter: EnvFilter) -> Guard {
    let ansi = std::io::stderr().is_terminal();
    let (writer, guard) = LogWriter::to_stderr();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(writer.clone());
    let (installed, layout) = match format {
        LogFormat::Text => (builder.try_init(), Layout::Text),
        LogFormat::Json => (builder.json().flatten_event(true).try_init(), Layout::Json),
    };
    // Coloured lines are for a person at a terminal; tracing writes those.
    if installed.is_ok() && !ansi {
        access_log::write_lines_to(layout, writer);
    }
    guard
}

/// The process-wide recorder, installed on first use.
pub fn metrics() -> Option<&'static PrometheusHandle> {
    static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    HANDLE
        .get_or_init(|| PrometheusBuilder::new().install_recorder().ok())
        .as_ref()
}

/// How often recorded histogram samples are folded into their buckets.
const METRICS_UPKEEP: std::time::Duration = std::time::Duration::from_secs(5);

/// Folds the recorder's pending histogram samples into their buckets every
/// few seconds, until `stop`. The recorder is installed without a task of
/// its own, and without one every request's duration stays queued in
/// memory until `/metrics` is next scraped: under load, megabytes a minute
/// on a server nobody scrapes.
pub async fn metrics_upkeep(stop: tokio_util::sync::CancellationToken) {
    let Some(handle) = metrics() else { return };
    let mut tick = tokio::time::interval(METRICS_UPKEEP);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => handle.run_upkeep(),
            () = stop.cancelled() => return,
        }
    }
}
