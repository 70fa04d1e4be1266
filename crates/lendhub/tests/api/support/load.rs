//! The write load of the fault tests (failover, partitions): writers that
//! create applications, each retrying its own `Idempotency-Key` on the
//! other instance until it is acknowledged, as a client behind a balancer
//! would; and the checks that follow: every acknowledged write present
//! exactly once on every instance, every event delivered.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde_json::{Value, json};

use super::process::all_events;
use super::receiver::Receiver;

/// What the load saw.
#[derive(Default)]
pub struct Seen {
    /// Application ids answered 201, by idempotency key.
    pub acknowledged: BTreeMap<String, String>,
    /// When each 201 came, since the load started.
    pub acks_at: Vec<Duration>,
    /// Every other answer: status, error code and whether `Retry-After`
    /// came (the sandbox envelope's "retry"), or the transport error.
    pub refusals: BTreeMap<String, usize>,
}

pub struct Load {
    pub seen: Arc<Mutex<Seen>>,
    pub started: Instant,
    stop: Arc<AtomicBool>,
    writers: Vec<tokio::task::JoinHandle<Vec<String>>>,
}

impl Load {
    /// `writers` writers against `bases` with `token`.
    pub fn start(http: &reqwest::Client, bases: &[String; 2], token: &str, writers: usize) -> Load {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let started = Instant::now();
        let run = lendhub_system::random_token(4);
        let writers = (0..writers)
            .map(|w| {
                let (http, bases, token, seen, stop, run) = (
                    http.clone(),
                    bases.clone(),
                    token.to_owned(),
                    seen.clone(),
                    stop.clone(),
                    run.clone(),
                );
                tokio::spawn(async move {
                    let mut unacknowledged = Vec::new();
                    for n in 0usize.. {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let key = format!("load-{run}-{w}-{n}");
                        let first = (w + n) % 2;
                        if !create_until_acknowledged(
                            &http, &bases, first, &token, &key, started, &seen,
                        )
                        .await
                        {
                            unacknowledged.push(key);
                        }
                    }
                    unacknowledged
                })
            })
            .collect();
        Load {
            seen,
            started,
            stop,
            writers,
        }
    }

    /// Acknowledgements since `since` (from the start).
    pub fn acks_since(&self, since: Duration) -> usize {
        self.seen
            .lock()
            .acks_at
            .iter()
            .filter(|t| **t > since)
            .count()
    }

    /// Stops the writers once each has its current key acknowledged; what
    /// they saw. Fails if any key was never acknowledged.
    pub async fn finish(self) -> Seen {
        self.stop.store(true, Ordering::Relaxed);
        let mut unacknowledged = Vec::new();
        for w in self.writers {
            unacknowledged.extend(w.await.unwrap());
        }
        assert!(
            unacknowledged.is_empty(),
            "never acknowledged: {unacknowledged:?}"
        );
        std::mem::take(&mut *self.seen.lock())
    }
}

async fn create_until_acknowledged(
    http: &reqwest::Client,
    bases: &[String; 2],
    first: usize,
    token: &str,
    key: &str,
    started: Instant,
    seen: &Mutex<Seen>,
) -> bool {
    let give_up = Instant::now() + Duration::from_secs(120);
    let body = json!({"business": {"company_number": "00000401"}, "amount_pence": 7_500});
    for attempt in 0usize.. {
        if Instant::now() > give_up {
            return false;
        }
        let base = &bases[(first + attempt) % 2];
        let sent = http
            .post(format!("{base}/v1/applications"))
            .bearer_auth(token)
            .header("Idempotency-Key", key)
            .json(&body)
            .send()
            .await;
        let refusal = match sent {
            Ok(r) if r.status() == 201 => {
                let app: Value = r.json().await.unwrap();
                let mut seen = seen.lock();
                seen.acknowledged
                    .insert(key.to_owned(), app["id"].as_str().unwrap().to_owned());
                seen.acks_at.push(started.elapsed());
                return true;
            }
            Ok(r) => {
                let status = r.status().as_u16();
                let retry_after = r.headers().contains_key("retry-after");
                let body: Value = r.json().await.unwrap_or(Value::Null);
                format!(
                    "{status} {} retry-after={retry_after}",
                    body["error"]["code"].as_str().unwrap_or("?"),
                )
            }
            Err(e) if e.is_timeout() => "transport: timeout".to_owned(),
            Err(e) => format!("transport: {e}"),
        };
        *seen.lock().refusals.entry(refusal).or_default() += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

impl Seen {
    /// The longest time without any acknowledgement.
    pub fn longest_gap(&self) -> Duration {
        let mut at = self.acks_at.clone();
        at.sort();
        at.windows(2).map(|w| w[1] - w[0]).max().unwrap_or_default()
    }

    /// Acknowledgements in `(from, to]`.
    pub fn acks_between(&self, from: Duration, to: Duration) -> usize {
        self.acks_at
            .iter()
            .filter(|t| **t > from && **t <= to)
            .count()
    }
}

/// Every acknowledged application reads back on every instance; the event
/// log holds one `application.created` per key (the load's, and `others`
/// the test made itself); every event reaches the receiver within a
/// minute. Returns how many deliveries were repeats.
pub async fn assert_exactly_once_and_delivered(
    http: &reqwest::Client,
    bases: &[String; 2],
    token: &str,
    seen: &Seen,
    others: &[String],
    receiver: &Receiver,
) -> usize {
    for id in seen.acknowledged.values() {
        for base in bases {
            let r = http
                .get(format!("{base}/v1/applications/{id}"))
                .bearer_auth(token)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "acknowledged application {id} was lost");
        }
    }
    let created = all_events(http, &bases[1], token, "application.created").await;
    let stored: HashSet<String> = created.iter().cloned().collect();
    assert_eq!(stored.len(), created.len(), "an event was stored twice");
    assert_eq!(
        stored.len(),
        seen.acknowledged.len() + others.len(),
        "one application per key, each acknowledged: no more, no fewer"
    );
    assert!(
        seen.acknowledged
            .values()
            .chain(others)
            .all(|id| stored.contains(id))
    );

    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut times: HashMap<String, usize> = HashMap::new();
        for r in receiver.all() {
            let id = serde_json::from_str::<Value>(&r.body).unwrap()["data"]["object"]["id"]
                .as_str()
                .unwrap()
                .to_owned();
            *times.entry(id).or_default() += 1;
        }
        if times.len() == stored.len() && stored.iter().all(|id| times.contains_key(id)) {
            return times.values().map(|n| n - 1).sum();
        }
        assert!(
            Instant::now() < deadline,
            "{} of {} events delivered",
            times.len(),
            stored.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Subscribes `url` to `application.created` on the sandbox at `base`.
pub async fn register_endpoint(http: &reqwest::Client, base: &str, token: &str, url: &str) {
    let r = http
        .post(format!("{base}/v1/webhook-endpoints"))
        .bearer_auth(token)
        .header("Idempotency-Key", format!("endpoint-{url}"))
        .json(&json!({"url": url, "enabled_events": ["application.created"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
}
