//! The load loops. Each worker owns one keep-alive connection.
//!
//! Closed loop: every worker sends its next request as soon as the previous
//! response has been read, so throughput is what the server sustains at that
//! concurrency.
//!
//! Open loop: request `i` is scheduled at `start + i / rate`; workers take
//! the next scheduled slot, wait for its time and send it. A slot picked up
//! late (all connections were busy) has its latency measured from the
//! *scheduled* time, so when the server falls behind the queueing delay is
//! counted (no coordinated omission).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::time::{Instant, sleep, sleep_until, timeout};

use crate::report::{Outcome, Stats};
use crate::scenarios::{Scenario, ScenarioName};
use crate::sso::{Chain, Sso, observe};
use crate::target::{Sender, Target};

/// After the window closes an open-loop run keeps draining its backlog for
/// at most this long; whatever is still unsent then is reported as `unsent`.
const DRAIN_GRACE: Duration = Duration::from_secs(5);
/// Pause after a connection failure so a dead server is not hammered in a spin.
const RECONNECT_PAUSE: Duration = Duration::from_millis(10);
/// How much of an error body to keep for the diagnostic line.
const ERROR_BODY_PREVIEW: usize = 200;

pub struct LoadConfig {
    pub connections: usize,
    pub duration: Duration,
    pub warmup: Duration,
    /// Open-loop arrival rate in requests per second; `None` for closed loop.
    pub rate: Option<f64>,
    pub timeout: Duration,
    /// Stop after this many requests in total (warm-up included).
    pub max_requests: Option<u64>,
}

struct Shared {
    /// Worker `i` uses `targets[i % len]`: several instances share the load evenly.
    targets: Vec<Target>,
    scenario: Scenario,
    config: LoadConfig,
    start: Instant,
    measure_start: Instant,
    end: Instant,
    /// Requests issued so far; for open loop also the next schedule slot.
    issued: AtomicU64,
}

/// Runs the load and returns merged stats plus the measured wall time.
pub async fn run(
    targets: Vec<Target>,
    scenario: Scenario,
    config: LoadConfig,
) -> Result<(Stats, Duration)> {
    // Connect everything first so connection setup is not in the measurement.
    let mut senders = Vec::with_capacity(config.connections);
    for i in 0..config.connections {
        senders.push(targets[i % targets.len()].connect().await?);
    }
    let start = Instant::now();
    let measure_start = start + config.warmup;
    let shared = Arc::new(Shared {
        end: measure_start + config.duration,
        targets,
        scenario,
        config,
        start,
        measure_start,
        issued: AtomicU64::new(0),
    });
    let workers: Vec<_> = senders
        .into_iter()
        .enumerate()
        .map(|(id, sender)| tokio::spawn(worker(id, sender, Arc::clone(&shared))))
        .collect();
    let mut total = Stats::new()?;
    for w in workers {
        total.merge(w.await.context("worker panicked")??)?;
    }
    let mut elapsed = Instant::now().saturating_duration_since(shared.measure_start);
    if shared.config.max_requests.is_none() {
        // An open-loop run's last slot is just before the window ends; the
        // window itself is the denominator.
        elapsed = elapsed.max(shared.config.duration);
    }
    Ok((total, elapsed))
}

async fn worker(id: usize, sender: Sender, shared: Arc<Shared>) -> Result<Stats> {
    let mut stats = Stats::new()?;
    let mut rng = StdRng::from_rng(&mut rand::rng());
    let mut conn = Some(sender);
    let mut seq = 0u64;
    let mut chain = Chain::default();
    while let Some(slot) = next_slot(&shared, &mut stats).await {
        seq += 1;
        let (request, origin) = match &shared.scenario.sso {
            None => (shared.scenario.request(id, seq, &mut rng)?, slot.origin),
            // What the request needs (a code, a first token) is fetched
            // unmeasured; latency counts from when the request is ready.
            Some(sso) => match prepare(&shared, sso, id, &mut conn, &mut chain).await {
                Ok(request) => (request, Instant::now()),
                Err(e) => {
                    conn = None;
                    if slot.measured {
                        stats.record(Outcome::Io(format!("{e:#}")), Duration::ZERO);
                    }
                    sleep(RECONNECT_PAUSE).await;
                    continue;
                }
            },
        };
        let (outcome, body) = send(&shared, id, &mut conn, request).await;
        if shared.scenario.name == ScenarioName::SsoRefresh {
            match &body {
                Some(body) => observe(&mut chain, body),
                // A refused or lost rotation ends the chain; start another.
                None => chain.refresh_token = None,
            }
        }
        let failed_connection = matches!(outcome, Outcome::Io(_));
        if slot.measured {
            stats.record(outcome, origin.elapsed());
        }
        if failed_connection {
            sleep(RECONNECT_PAUSE).await;
        }
    }
    Ok(stats)
}

/// The next request of an sso scenario, after whatever it needs first.
async fn prepare(
    shared: &Shared,
    sso: &Sso,
    worker: usize,
    conn: &mut Option<Sender>,
    chain: &mut Chain,
) -> Result<Request<Full<Bytes>>> {
    if conn.as_ref().is_none_or(Sender::is_closed) {
        let target = &shared.targets[worker % shared.targets.len()];
        *conn = Some(target.connect().await?);
    }
    let sender = conn.as_mut().context("no connection")?;
    match shared.scenario.name {
        ScenarioName::SsoCodeExchange => {
            let code = sso.code(sender).await?;
            sso.exchange_request(&code)
        }
        ScenarioName::SsoRefresh => {
            if chain.refresh_token.is_none() {
                sso.prime(sender, chain).await?;
            }
            sso.refresh_request(chain.refresh_token.as_deref().unwrap_or_default())
        }
        _ => {
            if chain.access_token.is_none() {
                sso.prime(sender, chain).await?;
            }
            sso.userinfo_request(chain.access_token.as_deref().unwrap_or_default())
        }
    }
}

/// When the next request is due, or `None` when this worker is done.
async fn next_slot(shared: &Shared, stats: &mut Stats) -> Option<Slot> {
    loop {
        let i = shared.issued.fetch_add(1, Ordering::Relaxed);
        if shared.config.max_requests.is_some_and(|max| i >= max) {
            return None;
        }
        let Some(rate) = shared.config.rate else {
            let now = Instant::now();
            return (now < shared.end).then(|| Slot::at(now, shared));
        };
        let scheduled = shared.start + Duration::from_secs_f64(i as f64 / rate);
        if scheduled >= shared.end {
            return None;
        }
        let now = Instant::now();
        if now < scheduled {
            // An idle worker waiting for its slot. Tokio's timer wakes up to
            // ~1 ms late; that lag is ours, not the server's, so count from
            // the actual wake-up.
            sleep_until(scheduled).await;
            let woke = Instant::now().max(scheduled);
            return Some(Slot {
                origin: woke,
                measured: scheduled >= shared.measure_start,
            });
        }
        if now < shared.end + DRAIN_GRACE {
            // Overdue because every connection was busy: the wait counts.
            return Some(Slot::at(scheduled, shared));
        }
        if scheduled >= shared.measure_start {
            stats.unsent += 1;
        }
    }
}

/// One request's timing: latency counts from `origin`; only requests due
/// after the warm-up are `measured`.
struct Slot {
    origin: Instant,
    measured: bool,
}

impl Slot {
    fn at(origin: Instant, shared: &Shared) -> Self {
        Self {
            origin,
            measured: origin >= shared.measure_start,
        }
    }
}

/// Sends one request; the body comes back with a successful outcome.
async fn send(
    shared: &Shared,
    worker: usize,
    conn: &mut Option<Sender>,
    request: Request<Full<Bytes>>,
) -> (Outcome, Option<Bytes>) {
    let exchange = async {
        if conn.as_ref().is_none_or(Sender::is_closed) {
            let target = &shared.targets[worker % shared.targets.len()];
            *conn = Some(target.connect().await?);
        }
        let sender = conn.as_mut().context("no connection")?;
        sender.ready().await?;
        let response = sender.send_request(request).await?;
        let status = response.status();
        // Read the whole body so the connection can be reused.
        let body = response.into_body().collect().await?.to_bytes();
        Ok::<_, anyhow::Error>((status, body))
    };
    // Bound to a local first so the borrow of `conn` ends before the arms.
    let result = timeout(shared.config.timeout, exchange).await;
    match result {
        Ok(Ok((status, body))) if status == shared.scenario.expected_status() => {
            (Outcome::Success, Some(body))
        }
        Ok(Ok((status, body))) => {
            let preview = &body[..body.len().min(ERROR_BODY_PREVIEW)];
            let text = String::from_utf8_lossy(preview);
            let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
            (Outcome::Status(status.as_u16(), one_line), None)
        }
        Ok(Err(e)) => {
            *conn = None;
            (Outcome::Io(format!("{e:#}")), None)
        }
        Err(_) => {
            // The response may still arrive on this connection; start afresh.
            *conn = None;
            (Outcome::Timeout, None)
        }
    }
}
