//! Per-run counters and latency histogram, and the one-line JSON report.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Context, Result};
use hdrhistogram::Histogram;
use serde_json::{Value, json};

/// Latencies are recorded in microseconds, 1 µs to 60 s, 3 significant digits.
const MAX_LATENCY_US: u64 = 60_000_000;

/// How one request ended.
pub enum Outcome {
    /// The scenario's expected status.
    Success,
    /// Any other HTTP status, with the start of the body for diagnosis.
    Status(u16, String),
    /// Connection or protocol failure.
    Io(String),
    /// No response within --timeout.
    Timeout,
}

pub struct Stats {
    latency_us: Histogram<u64>,
    pub ok: u64,
    /// Error counts keyed by status code, or `io` / `timeout`.
    pub errors: BTreeMap<String, u64>,
    /// Open loop only: requests scheduled in the window but never sent
    /// because the backlog could not be drained in time.
    pub unsent: u64,
    /// First error seen, to print once on stderr.
    pub first_error: Option<String>,
}

impl Stats {
    pub fn new() -> Result<Self> {
        Ok(Self {
            latency_us: Histogram::new_with_bounds(1, MAX_LATENCY_US, 3)
                .context("latency histogram")?,
            ok: 0,
            errors: BTreeMap::new(),
            unsent: 0,
            first_error: None,
        })
    }

    /// Success latencies go into the histogram; errors are only counted.
    pub fn record(&mut self, outcome: Outcome, latency: Duration) {
        let (key, detail) = match outcome {
            Outcome::Success => {
                let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
                self.latency_us
                    .saturating_record(us.clamp(1, MAX_LATENCY_US));
                self.ok += 1;
                return;
            }
            Outcome::Status(code, body) => (code.to_string(), format!("HTTP {code}: {body}")),
            Outcome::Io(e) => ("io".to_owned(), format!("io: {e}")),
            Outcome::Timeout => ("timeout".to_owned(), "timeout".to_owned()),
        };
        *self.errors.entry(key).or_default() += 1;
        self.first_error.get_or_insert(detail);
    }

    pub fn merge(&mut self, other: Self) -> Result<()> {
        self.latency_us
            .add(&other.latency_us)
            .context("merge histograms")?;
        self.ok += other.ok;
        for (key, n) in other.errors {
            *self.errors.entry(key).or_default() += n;
        }
        self.unsent += other.unsent;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
        Ok(())
    }

    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }

    fn quantile_ms(&self, q: f64) -> f64 {
        if self.latency_us.is_empty() {
            return 0.0;
        }
        round3(self.latency_us.value_at_quantile(q) as f64 / 1000.0)
    }
}

/// The run's parameters, echoed into the report.
pub struct RunInfo<'a> {
    pub scenario: &'a str,
    pub connections: usize,
    pub duration_s: f64,
    pub rate: Option<f64>,
    /// Measured window: from the end of warm-up until the last worker stopped.
    pub elapsed: Duration,
}

pub fn to_json(info: &RunInfo<'_>, stats: &Stats) -> Value {
    let errors = stats.error_count();
    let elapsed = info.elapsed.as_secs_f64().max(1e-9);
    json!({
        "scenario": info.scenario,
        "connections": info.connections,
        "duration_s": info.duration_s,
        "rate": info.rate,
        "requests": stats.ok + errors,
        "errors": errors,
        "errors_by_status": stats.errors,
        "unsent": stats.unsent,
        "elapsed_s": round3(elapsed),
        "throughput_rps": round3(stats.ok as f64 / elapsed),
        "p50_ms": stats.quantile_ms(0.50),
        "p90_ms": stats.quantile_ms(0.90),
        "p99_ms": stats.quantile_ms(0.99),
        "max_ms": if stats.latency_us.is_empty() { 0.0 } else {
            round3(stats.latency_us.max() as f64 / 1000.0)
        },
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_successes_and_errors_apart() {
        let mut a = Stats::new().unwrap();
        a.record(Outcome::Success, Duration::from_millis(2));
        a.record(
            Outcome::Status(500, "boom".into()),
            Duration::from_millis(1),
        );
        let mut b = Stats::new().unwrap();
        b.record(Outcome::Success, Duration::from_millis(4));
        b.record(Outcome::Timeout, Duration::from_secs(10));
        a.merge(b).unwrap();
        let info = RunInfo {
            scenario: "baseline",
            connections: 2,
            duration_s: 1.0,
            rate: None,
            elapsed: Duration::from_secs(1),
        };
        let v = to_json(&info, &a);
        assert_eq!(v["requests"], 4);
        assert_eq!(v["errors"], 2);
        assert_eq!(v["errors_by_status"]["500"], 1);
        assert_eq!(v["errors_by_status"]["timeout"], 1);
        assert_eq!(v["throughput_rps"], 2.0);
        assert!(v["rate"].is_null());
        assert!((v["max_ms"].as_f64().unwrap() - 4.0).abs() < 0.01);
        assert_eq!(a.first_error.as_deref(), Some("HTTP 500: boom"));
    }
}
