//! The PostgreSQL primary killed under load (issue #19): two instances on a
//! primary with a synchronous standby, reached through a multi-host URL
//! with `target_session_attrs=read-write`. pg_auto_failover promotes the
//! standby; lendhub answers 503 with the envelope meanwhile, reconnects by
//! itself, and every write acknowledged before, during and after is there
//! exactly once, its event delivered. Runs with the PostgreSQL suite: it
//! needs Debian's pg_auto_failover and a minute and a half.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use base64::Engine;
use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::support::Site;
use crate::support::database::{Backend, FailoverCluster, backend};
use crate::support::process::{Process, all_events, client_token, credential, launch_with};
use crate::support::receiver::Receiver;

/// What the load saw, per writer, merged at the end.
#[derive(Default)]
struct Seen {
    /// Application ids answered 201, by idempotency key.
    acknowledged: BTreeMap<String, String>,
    /// When each 201 came, since the load started.
    acks_at: Vec<Duration>,
    /// Every other answer: status and error code (or the transport error).
    refusals: BTreeMap<String, usize>,
}

/// Creates an application with `key` until it is acknowledged, alternating
/// instances as a client behind a balancer would, and notes every answer.
async fn create_until_acknowledged(
    http: &reqwest::Client,
    bases: &[String; 2],
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
        let base = &bases[attempt % 2];
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
                // The sandbox's envelope says "retry" with Retry-After.
                format!(
                    "{status} {} retry-after={retry_after}",
                    body["error"]["code"].as_str().unwrap_or("?"),
                )
            }
            Err(e) => format!("transport: {e}"),
        };
        *seen.lock().refusals.entry(refusal).or_default() += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// The longest time without any acknowledgement, once the load ran.
fn longest_gap(mut at: Vec<Duration>) -> Duration {
    at.sort();
    at.windows(2).map(|w| w[1] - w[0]).max().unwrap_or_default()
}

#[tokio::test]
async fn a_killed_primary_fails_over_and_nothing_acknowledged_is_lost() {
    if !matches!(backend(), Backend::Postgres { .. }) {
        eprintln!("failover: runs with TEST_BACKEND=postgres");
        return;
    }
    let cluster = FailoverCluster::up();
    let site = Site {
        dir: tempfile::tempdir().unwrap(),
        database_url: Some(cluster.url.clone()),
    };
    let key = base64::engine::general_purpose::STANDARD.encode(
        <lendhub_domain::crypto::MasterKey as lendhub_system::GenerateKey>::generate().as_bytes(),
    );
    let env = [
        ("LENDHUB_SECRETS__MASTER_KEY", key.as_str()),
        ("LENDHUB_HUB__PUBLIC_URL", "http://hub.lendhub.test"),
        // Connecting to a dead node, or waiting for a connection, gives up
        // after a second: the request answers 503 instead of hanging.
        ("LENDHUB_DATABASE__TIMEOUT_MS", "1000"),
    ];
    let a: Process = launch_with(&site, &env);
    let b: Process = launch_with(&site, &env);
    let (client_id, secret) = (
        credential(&a.stdout, "client_id"),
        credential(&a.stdout, "client_secret"),
    );
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(40))
        .build()
        .unwrap();
    let token = client_token(&http, &a.base, &client_id, &secret).await;
    let receiver = Receiver::start(&[]).await;
    let endpoint = http
        .post(format!("{}/v1/webhook-endpoints", a.base))
        .bearer_auth(&token)
        .header("Idempotency-Key", "failover-endpoint")
        .json(&json!({"url": receiver.url, "enabled_events": ["application.created"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(endpoint.status(), 201);

    let bases = [a.base.clone(), b.base.clone()];
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let mut writers = Vec::new();
    for w in 0..6usize {
        let (http, bases, token, seen, stop) = (
            http.clone(),
            bases.clone(),
            token.clone(),
            seen.clone(),
            stop.clone(),
        );
        writers.push(tokio::spawn(async move {
            let mut unacknowledged = Vec::new();
            for n in 0usize.. {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let key = format!("failover-{w}-{n}");
                if !create_until_acknowledged(&http, &bases, &token, &key, started, &seen).await {
                    unacknowledged.push(key);
                }
            }
            unacknowledged
        }));
    }

    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = seen.lock().acknowledged.len();
    let old = cluster.kill_primary().await;
    let killed_at = started.elapsed();
    let new = cluster.wait_primary(&old, 120).await;
    let promoted_at = started.elapsed();
    // Load goes on until both instances have written through the new
    // primary for a while.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let recent = seen
            .lock()
            .acks_at
            .iter()
            .filter(|t| **t > promoted_at)
            .count();
        if recent > 40 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no recovery after the promotion: {:?}\n{}",
            seen.lock().refusals,
            cluster.state()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop.store(true, Ordering::Relaxed);
    let mut unacknowledged = Vec::new();
    for w in writers {
        unacknowledged.extend(w.await.unwrap());
    }
    assert!(
        unacknowledged.is_empty(),
        "never acknowledged: {unacknowledged:?}"
    );
    let seen = Arc::try_unwrap(seen).ok().unwrap().into_inner();
    let acknowledged: HashSet<&String> = seen.acknowledged.values().collect();
    let during = seen
        .acks_at
        .iter()
        .filter(|t| **t > killed_at && **t <= promoted_at)
        .count();
    eprintln!(
        "failover: primary {old} killed at {killed_at:?}, {new} promoted at {promoted_at:?}; \
         {} acknowledged ({before} before the kill, {during} during the switch); \
         longest time without an acknowledgement {:?}; refusals {:?}",
        acknowledged.len(),
        longest_gap(seen.acks_at.clone()),
        seen.refusals
    );
    assert!(before > 20, "the load wrote too little before the kill");
    // While no node took writes the answer was a retryable 503 with the
    // envelope, never a hang or another error.
    for refusal in seen.refusals.keys() {
        assert_eq!(
            refusal, "503 service_unavailable retry-after=true",
            "{:?}",
            seen.refusals
        );
    }

    // Each acknowledged application is there once, on both instances; the
    // event log has one `application.created` per key, no more.
    for id in &acknowledged {
        for base in &bases {
            let r = http
                .get(format!("{base}/v1/applications/{id}"))
                .bearer_auth(&token)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "acknowledged application {id} was lost");
        }
    }
    let created = all_events(&http, &b.base, &token, "application.created").await;
    let stored: HashSet<String> = created.iter().cloned().collect();
    assert_eq!(stored.len(), created.len(), "an event was stored twice");
    assert_eq!(
        stored.len(),
        seen.acknowledged.len(),
        "one application per key, each acknowledged: no more, no fewer"
    );
    assert!(acknowledged.iter().all(|id| stored.contains(*id)));

    // Every event reaches the receiver, including those the switch delayed.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let delivered: HashSet<String> = receiver
            .all()
            .iter()
            .map(|r| {
                serde_json::from_str::<Value>(&r.body).unwrap()["data"]["object"]["id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        if delivered == stored {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {} events delivered",
            delivered.len(),
            stored.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
