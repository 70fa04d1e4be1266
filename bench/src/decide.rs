//! `lendhub-bench decide`: white-label decisions through the account
//! information path, end to end, as many as the server makes in the window.
//! Each worker loops over the steps a partner and an applicant take:
//!
//! 1. `create`: `POST {prefix}/applications`;
//! 2. `connect`: `POST {prefix}/applications/{id}/bank_connections` (lendhub
//!    asks the bank for an account-access consent);
//! 3. `bank_page`, `bank_approve`: the applicant at the model bank's consent
//!    page, approving the strong test account (the bank's work, not
//!    lendhub's, but on the same machine);
//! 4. `callback`: `GET /open-banking/callback` (lendhub exchanges the code
//!    and reads the account, its balances and a year of transactions);
//! 5. `submit`: `POST {prefix}/applications/{id}/submit` naming the
//!    connection (the register, the bureau, the engine, one commit).
//!
//! The keys are spread over the workers in turn, so the create sub-limit of
//! 5 a second applies per partner, not to the run. Prints one JSON line.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use hdrhistogram::Histogram;
use parking_lot::Mutex;
use serde_json::{Value, json};

const STEPS: [&str; 6] = [
    "create",
    "connect",
    "bank_page",
    "bank_approve",
    "callback",
    "submit",
];

#[derive(clap::Args, Clone, Debug)]
pub struct DecideArgs {
    /// The hub's base URL (loopback).
    #[arg(long)]
    hub: String,
    /// The REST tier's mount: `/sandbox/v1` (the test environment) or
    /// `/partner/v1`.
    #[arg(long, default_value = "/sandbox/v1")]
    prefix: String,
    /// A file of API keys, one a line, each of its own partner.
    #[arg(long)]
    keys_file: std::path::PathBuf,
    /// The bank to connect (`GET /banks`).
    #[arg(long, default_value = "model_bank")]
    bank: String,
    /// Concurrent applicants.
    #[arg(long, short = 'c', default_value_t = 8)]
    workers: usize,
    /// Measured seconds.
    #[arg(long, short = 'd', default_value_t = 10.0)]
    duration: f64,
    /// Unmeasured seconds first.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// The server's Prometheus page, scraped as the measured window opens
    /// and closes into `--metrics-out`/metrics-{before,after}.txt.
    #[arg(long, requires = "metrics_out")]
    metrics: Option<String>,
    #[arg(long)]
    metrics_out: Option<std::path::PathBuf>,
}

/// The server's metrics now, into `{out}/metrics-{name}.txt`.
async fn scrape(http: &reqwest::Client, args: &DecideArgs, name: &str) -> Result<()> {
    let (Some(url), Some(out)) = (&args.metrics, &args.metrics_out) else {
        return Ok(());
    };
    let text = http
        .get(url)
        .send()
        .await?
        .error_for_status()?
        .text()
        .await?;
    std::fs::write(out.join(format!("metrics-{name}.txt")), text)?;
    Ok(())
}

struct Shared {
    args: DecideArgs,
    keys: Vec<String>,
    http: reqwest::Client,
    measuring: AtomicBool,
    stop: AtomicBool,
    next_key: AtomicU64,
    decisions: AtomicU64,
    errors: AtomicU64,
    first_error: Mutex<Option<String>>,
    outcomes: Mutex<std::collections::BTreeMap<String, u64>>,
    steps: Mutex<Vec<Histogram<u64>>>,
}

pub fn run(args: &DecideArgs) -> Result<()> {
    let args = args.clone();
    let keys: Vec<String> = std::fs::read_to_string(&args.keys_file)
        .with_context(|| format!("reading {}", args.keys_file.display()))?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    if keys.is_empty() || args.workers == 0 {
        bail!("need at least one key and one worker");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    runtime.block_on(async move {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .pool_max_idle_per_host(args.workers * 2)
            .build()?;
        let histogram = || Histogram::<u64>::new_with_bounds(1, 60_000_000, 3);
        let steps = STEPS
            .iter()
            .map(|_| histogram())
            .collect::<Result<_, _>>()?;
        let shared = Arc::new(Shared {
            keys,
            http,
            measuring: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            next_key: AtomicU64::new(0),
            decisions: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            first_error: Mutex::default(),
            outcomes: Mutex::default(),
            steps: Mutex::new(steps),
            args,
        });
        let workers: Vec<_> = (0..shared.args.workers)
            .map(|_| tokio::spawn(worker(shared.clone())))
            .collect();
        tokio::time::sleep(Duration::from_secs_f64(shared.args.warmup)).await;
        scrape(&shared.http, &shared.args, "before").await?;
        shared.measuring.store(true, Ordering::SeqCst);
        let started = Instant::now();
        tokio::time::sleep(Duration::from_secs_f64(shared.args.duration)).await;
        shared.measuring.store(false, Ordering::SeqCst);
        let elapsed = started.elapsed().as_secs_f64();
        scrape(&shared.http, &shared.args, "after").await?;
        shared.stop.store(true, Ordering::SeqCst);
        for w in workers {
            w.await?;
        }
        println!("{}", report(&shared, elapsed));
        Ok(())
    })
}

fn report(shared: &Shared, elapsed: f64) -> Value {
    let decisions = shared.decisions.load(Ordering::SeqCst);
    let steps = shared.steps.lock();
    let by_step: serde_json::Map<String, Value> = STEPS
        .iter()
        .zip(steps.iter())
        .map(|(name, h)| {
            let ms = |us: u64| us as f64 / 1000.0;
            (
                (*name).to_owned(),
                json!({
                    "count": h.len(),
                    "mean_ms": h.mean() / 1000.0,
                    "p50_ms": ms(h.value_at_quantile(0.5)),
                    "p99_ms": ms(h.value_at_quantile(0.99)),
                }),
            )
        })
        .collect();
    json!({
        "scenario": "decide-ais",
        "workers": shared.args.workers,
        "partners": shared.keys.len(),
        "duration_s": elapsed,
        "decisions": decisions,
        "decisions_per_s": decisions as f64 / elapsed,
        "errors": shared.errors.load(Ordering::SeqCst),
        "first_error": *shared.first_error.lock(),
        "outcomes": *shared.outcomes.lock(),
        "steps": by_step,
    })
}

async fn worker(shared: Arc<Shared>) {
    while !shared.stop.load(Ordering::SeqCst) {
        let turn = shared.next_key.fetch_add(1, Ordering::SeqCst) as usize;
        let key = &shared.keys[turn % shared.keys.len()];
        let measured = shared.measuring.load(Ordering::SeqCst);
        let mut took = [0u64; STEPS.len()];
        match decide(&shared, key, &mut took).await {
            Ok(outcome) if measured && shared.measuring.load(Ordering::SeqCst) => {
                shared.decisions.fetch_add(1, Ordering::SeqCst);
                *shared.outcomes.lock().entry(outcome).or_default() += 1;
                let mut steps = shared.steps.lock();
                for (h, us) in steps.iter_mut().zip(took) {
                    let _ = h.record(us.max(1));
                }
            }
            Ok(_) => {}
            Err(e) => {
                shared.errors.fetch_add(1, Ordering::SeqCst);
                shared.first_error.lock().get_or_insert(format!("{e:#}"));
                // An error loop would only measure itself.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Times one step into `took[step]`.
async fn step<T>(
    took: &mut [u64; STEPS.len()],
    step: usize,
    f: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    let started = Instant::now();
    let out = f.await.with_context(|| STEPS[step]);
    took[step] = started.elapsed().as_micros() as u64;
    out
}

async fn json_answer(r: reqwest::Response, want: u16) -> Result<Value> {
    let status = r.status().as_u16();
    let body = r.text().await?;
    if status != want {
        bail!("answered {status}: {body}");
    }
    Ok(serde_json::from_str(&body)?)
}

fn location(r: &reqwest::Response) -> Result<String> {
    if !r.status().is_redirection() {
        bail!("answered {} instead of a redirect", r.status());
    }
    Ok(r.headers()
        .get("location")
        .ok_or_else(|| anyhow!("a redirect without Location"))?
        .to_str()?
        .to_owned())
}

/// One application from creation to decision: its outcome.
async fn decide(shared: &Shared, key: &str, took: &mut [u64; STEPS.len()]) -> Result<String> {
    let (http, a) = (&shared.http, &shared.args);
    let api = format!("{}{}", a.hub, a.prefix);
    let application = json!({
        "business": {"company_number": "00000401"},
        "amount_pence": 1_000_000,
        "term_months": 24,
        "applicant": {"email": "bench@example.com"},
    });
    let created = step(took, 0, async {
        let r = http
            .post(format!("{api}/applications"))
            .bearer_auth(key)
            .json(&application)
            .send()
            .await?;
        json_answer(r, 201).await
    })
    .await?;
    let id = created["id"].as_str().unwrap_or_default().to_owned();
    let connection = step(took, 1, async {
        let r = http
            .post(format!("{api}/applications/{id}/bank_connections"))
            .bearer_auth(key)
            .json(&json!({"bank": a.bank, "return_url": "http://127.0.0.1/bank-done"}))
            .send()
            .await?;
        json_answer(r, 201).await
    })
    .await?;
    let authorise = connection["authorisation_url"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let page = step(took, 2, async {
        let r = http.get(&authorise).send().await?;
        if !r.status().is_success() {
            bail!("the consent page answered {}", r.status());
        }
        Ok(r.text().await?)
    })
    .await?;
    let token = page
        .split("name=\"page\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .ok_or_else(|| anyhow!("no consent form on the bank's page"))?
        .to_owned();
    let bank = url::Url::parse(&authorise)?.origin().ascii_serialization();
    let callback = step(took, 3, async {
        let r = http
            .post(format!("{bank}/authorize"))
            .form(&[
                ("page", token.as_str()),
                ("decision", "approve"),
                ("account", "strong"),
            ])
            .send()
            .await?;
        location(&r)
    })
    .await?;
    let back = step(took, 4, async {
        let r = http.get(&callback).send().await?;
        location(&r)
    })
    .await?;
    if !back.ends_with("status=connected") {
        bail!("the connection ended {back}");
    }
    let submission = json!({
        "consents": {"credit_search": true, "open_banking": true, "terms": true},
        "bank_connection": connection["id"],
    });
    let decided = step(took, 5, async {
        let r = http
            .post(format!("{api}/applications/{id}/submit"))
            .bearer_auth(key)
            .json(&submission)
            .send()
            .await?;
        json_answer(r, 200).await
    })
    .await?;
    Ok(decided["status"].as_str().unwrap_or("unknown").to_owned())
}
