//! `lendhub-bench receive`: a webhook receiver that checks every delivery's
//! `Service-Signature` against the endpoint's secret, counts each event id,
//! and prints one JSON line once `--expect` distinct events have arrived (or
//! the timeout passed): how many came, how many twice, how many failed the
//! check, and the rate from the first delivery to the last.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use lendhub_domain::webhooks::signature;
use parking_lot::Mutex;
use tokio::sync::Notify;

#[derive(clap::Args, Debug)]
pub struct ReceiveArgs {
    /// Where to listen (loopback).
    #[arg(long, default_value = "127.0.0.1:18383")]
    listen: SocketAddr,
    /// The endpoint's `whsec_…` secret.
    #[arg(long)]
    secret: String,
    /// Distinct events to wait for.
    #[arg(long)]
    expect: usize,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 300.0)]
    timeout: f64,
}

#[derive(Default)]
struct Tally {
    seen: HashMap<String, u32>,
    bad_signatures: u64,
    first: Option<Instant>,
    last: Option<Instant>,
}

struct Receiver {
    secret: String,
    expect: usize,
    tally: Mutex<Tally>,
    done: Notify,
}

async fn hook(State(r): State<Arc<Receiver>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let header = headers
        .get(signature::HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let id = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v["id"].as_str().map(str::to_owned));
    let mut tally = r.tally.lock();
    let at = Instant::now();
    tally.first.get_or_insert(at);
    match (signature::verify(&r.secret, header, &body, now), id) {
        (Ok(()), Some(id)) => {
            *tally.seen.entry(id).or_default() += 1;
            tally.last = Some(at);
            if tally.seen.len() >= r.expect {
                r.done.notify_one();
            }
            StatusCode::OK
        }
        _ => {
            tally.bad_signatures += 1;
            StatusCode::BAD_REQUEST
        }
    }
}

pub fn run(args: &ReceiveArgs) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("tokio runtime")?;
    runtime.block_on(async {
        let receiver = Arc::new(Receiver {
            secret: args.secret.clone(),
            expect: args.expect,
            tally: Mutex::default(),
            done: Notify::new(),
        });
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("binding {}", args.listen))?;
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(hook))
            .with_state(receiver.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        eprintln!("lendhub-bench: receiving on http://{}/hook", args.listen);
        let timeout = Duration::try_from_secs_f64(args.timeout).context("--timeout")?;
        let finished = tokio::time::timeout(timeout, receiver.done.notified())
            .await
            .is_ok();
        // Let a late duplicate of the last deliveries show up.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let tally = receiver.tally.lock();
        let deliveries: u64 = tally.seen.values().map(|n| u64::from(*n)).sum();
        let unique = tally.seen.len() as u64;
        let seconds = match (tally.first, tally.last) {
            (Some(a), Some(b)) => b.duration_since(a).as_secs_f64(),
            _ => 0.0,
        };
        println!(
            "{}",
            serde_json::json!({
                "probe": "deliveries",
                "expected": args.expect,
                "finished": finished,
                "unique_events": unique,
                "deliveries": deliveries,
                "duplicates": deliveries - unique,
                "lost": (args.expect as u64).saturating_sub(unique),
                "bad_signatures": tally.bad_signatures,
                "seconds": seconds,
                "deliveries_per_second": if seconds > 0.0 { unique as f64 / seconds } else { 0.0 },
            })
        );
        Ok(())
    })
}
