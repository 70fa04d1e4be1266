//! `lendhub-bench settle`: the payout rail's settlement webhooks, as fast as
//! the server takes them (issue #47). Each line of `--ids` (written by
//! `seed-servicing --sending`) is a payout with the rail; for each, a
//! `TransactionSettled` webhook is made and signed with the model bank's
//! key before the clock starts (the bank's work, not lendhub's), then all
//! are posted to `/payout-rail/events/<env>` over `--connections`
//! connections. A webhook counts once lendhub answered `200` with its
//! nonce: the loan is booked (account opened, drawdown posted, three
//! events) and the answer signed. Prints one JSON line.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use parking_lot::Mutex;
use serde_json::{Value, json};

#[derive(clap::Args, Clone, Debug)]
pub struct SettleArgs {
    /// The hub's base URL (loopback).
    #[arg(long)]
    hub: String,
    /// The environment whose rail posts: `live` or `test`.
    #[arg(long, default_value = "live")]
    environment: String,
    /// "end-to-end id amount_pence" lines.
    #[arg(long)]
    ids: std::path::PathBuf,
    /// Webhooks in flight at once.
    #[arg(long, short = 'c', default_value_t = 32)]
    connections: usize,
}

pub fn run(args: &SettleArgs) -> Result<()> {
    if args.connections == 0 {
        bail!("--connections must be at least 1");
    }
    let text = std::fs::read_to_string(&args.ids)
        .with_context(|| format!("reading {}", args.ids.display()))?;
    let signer = lendhub_system::RsaSigner::from_pem(lendhub_models::keys::MODEL_BANK_SIGNING_PEM)
        .map_err(|e| anyhow!("the model bank's key: {e}"))?;
    let settled_at =
        time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339)?;
    let mut webhooks = Vec::new();
    for (n, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let (id, pence) = line
            .split_once(' ')
            .with_context(|| format!("line {}: \"id amount\"", n + 1))?;
        let pence: i64 = pence.trim().parse().context("an amount in pence")?;
        let nonce = n as i64 + 1;
        let body = json!({
            "Type": "TransactionSettled",
            "Version": 6,
            "Nonce": nonce,
            "Payload": {
                "TransactionId": lendhub_system::random_uuid(),
                "Status": "Settled",
                "Scheme": "FasterPayments",
                "EndToEndTransactionId": id,
                "Amount": pence as f64 / 100.0,
                "TimestampSettled": settled_at,
                "TimestampCreated": settled_at,
                "CurrencyCode": "GBP",
                "DebitCreditCode": "Debit",
                "IsReturn": false,
            },
        })
        .to_string();
        let signature = STANDARD.encode(
            signer
                .sign_rs256(body.as_bytes())
                .map_err(|e| anyhow!("signing: {e}"))?,
        );
        webhooks.push((body, signature, nonce));
    }
    let total = webhooks.len();
    let url = format!(
        "{}/payout-rail/events/{}",
        args.hub.trim_end_matches('/'),
        args.environment
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    let webhooks = Arc::new(webhooks);
    let next = Arc::new(AtomicUsize::new(0));
    let latencies = Arc::new(Mutex::new(Histogram::<u64>::new(3)?));
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()?;
    let started = Instant::now();
    runtime.block_on(async {
        let mut workers = Vec::new();
        for _ in 0..args.connections {
            let (webhooks, next, latencies, failures, http, url) = (
                webhooks.clone(),
                next.clone(),
                latencies.clone(),
                failures.clone(),
                http.clone(),
                url.clone(),
            );
            workers.push(tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((body, signature, nonce)) = webhooks.get(i) else {
                        return;
                    };
                    let sent = Instant::now();
                    let answer = http
                        .post(&url)
                        .header("content-type", "application/json")
                        .header("DigitalSignature", signature)
                        .body(body.clone())
                        .send()
                        .await;
                    let taken = match answer {
                        Ok(a)
                            if a.status() == 200
                                && a.headers().contains_key("digitalsignature") =>
                        {
                            a.json::<Value>()
                                .await
                                .ok()
                                .and_then(|v| v["Nonce"].as_i64())
                                == Some(*nonce)
                        }
                        Ok(a) => {
                            failures.lock().push(format!("{}", a.status()));
                            false
                        }
                        Err(e) => {
                            failures.lock().push(e.to_string());
                            false
                        }
                    };
                    if taken {
                        let micros = sent.elapsed().as_micros() as u64;
                        let _ = latencies.lock().record(micros.max(1));
                    }
                }
            }));
        }
        for w in workers {
            let _ = w.await;
        }
    });
    let elapsed = started.elapsed().as_secs_f64();
    let latencies = latencies.lock();
    let failures = failures.lock();
    let taken = latencies.len() as usize;
    println!(
        "{}",
        json!({
            "webhooks": total,
            "taken": taken,
            "failed": total - taken,
            "first_failure": failures.first(),
            "seconds": elapsed,
            "per_second": taken as f64 / elapsed,
            "p50_ms": latencies.value_at_quantile(0.5) as f64 / 1000.0,
            "p99_ms": latencies.value_at_quantile(0.99) as f64 / 1000.0,
            "connections": args.connections,
        })
    );
    Ok(())
}
