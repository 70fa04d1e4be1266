//! `kill -9` during a write load: every acknowledged application survives
//! exactly once and every event is still delivered after restart.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::support::eventually;
use crate::support::process::{client_token as token, credential, launch};
use crate::support::receiver::Receiver;

#[tokio::test]
async fn kill_9_loses_nothing_acknowledged() {
    let site = crate::support::Site::new().await;
    let http = reqwest::Client::new();
    let first = launch(&site);
    let (id, secret) = (
        credential(&first.stdout, "client_id"),
        credential(&first.stdout, "client_secret"),
    );
    let tok = token(&http, &first.base, &id, &secret).await;
    let receiver = Receiver::start(&[]).await;
    let r = http
        .post(format!("{}/v1/webhook-endpoints", first.base))
        .bearer_auth(&tok)
        .header("Idempotency-Key", "crash-endpoint")
        .json(&json!({"url": receiver.url, "enabled_events": ["application.created"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);

    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let deadline = Instant::now() + Duration::from_millis(1500);
    let mut writers = Vec::new();
    for w in 0..8 {
        let (http, base, tok, acked) = (
            http.clone(),
            first.base.clone(),
            tok.clone(),
            acknowledged.clone(),
        );
        writers.push(tokio::spawn(async move {
            for n in 0.. {
                let body =
                    json!({"business": {"company_number": "00000401"}, "amount_pence": 5_000 + n});
                let sent = http
                    .post(format!("{base}/v1/applications"))
                    .bearer_auth(&tok)
                    .header("Idempotency-Key", format!("crash-{w}-{n}"))
                    .json(&body)
                    .send()
                    .await;
                match sent {
                    Ok(r) if r.status() == 201 => {
                        if let Ok(v) = r.json::<Value>().await {
                            acked.lock().push(v["id"].as_str().unwrap().to_owned());
                        }
                    }
                    _ => break,
                }
                if Instant::now() > deadline + Duration::from_secs(5) {
                    break;
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    drop(first); // SIGKILL, mid-load
    for w in writers {
        w.await.unwrap();
    }
    let acked = acknowledged.lock().clone();
    assert!(
        acked.len() > 20,
        "the load should have written something: {}",
        acked.len()
    );

    let second = launch(&site);
    let tok = token(&http, &second.base, &id, &secret).await;
    for app_id in &acked {
        let r = http
            .get(format!("{}/v1/applications/{app_id}", second.base))
            .bearer_auth(&tok)
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.status(),
            200,
            "acknowledged application {app_id} was lost"
        );
    }
    // Exactly once: one application.created event per stored application, no duplicates.
    let created =
        crate::support::process::all_events(&http, &second.base, &tok, "application.created").await;
    let unique: std::collections::HashSet<_> = created.iter().cloned().collect();
    assert_eq!(
        unique.len(),
        created.len(),
        "an application was stored twice"
    );
    assert!(acked.iter().all(|a| unique.contains(a)));
    // Every stored event reaches the receiver, the survivors of the crash included.
    let expected = unique.len();
    eventually("every event delivered", || {
        let delivered: std::collections::HashSet<String> = receiver
            .all()
            .iter()
            .map(|r| {
                serde_json::from_str::<Value>(&r.body).unwrap()["data"]["object"]["id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        delivered.len() == expected
    })
    .await;
}

/// A receiver that records every request and leaves the first one without
/// an answer, as a receiver does when the sender dies mid-request.
async fn first_request_hangs() -> (String, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let record = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: String| {
            let record = record.clone();
            async move {
                let first = {
                    let mut seen = record.lock();
                    seen.push(body);
                    seen.len() == 1
                };
                if first {
                    std::future::pending::<()>().await;
                }
                axum::http::StatusCode::OK
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

/// `kill -9` while a delivery is in flight leaves its lease in the database.
/// The restarted instance gives back its own leases before it claims, so the
/// delivery goes out again at once: not after the lease (here ten minutes)
/// plus a retry delay. Both runs name themselves alike (`instance.id`), as a
/// deployment on PostgreSQL must for this; SQLite's default name would do.
/// (Restarted under another name, this test times out: checked by hand.)
#[tokio::test]
async fn a_restarted_instance_takes_back_its_in_flight_deliveries_at_once() {
    let site = crate::support::Site::new().await;
    let http = reqwest::Client::new();
    let ten_minutes = [
        ("LENDHUB_WEBHOOKS__LEASE_SECONDS", "600"),
        ("LENDHUB_INSTANCE__ID", "instance-a"),
    ];
    let first = crate::support::process::launch_with(&site, &ten_minutes);
    let (id, secret) = (
        credential(&first.stdout, "client_id"),
        credential(&first.stdout, "client_secret"),
    );
    let tok = token(&http, &first.base, &id, &secret).await;
    let (url, seen) = first_request_hangs().await;
    let r = http
        .post(format!("{}/v1/webhook-endpoints", first.base))
        .bearer_auth(&tok)
        .header("Idempotency-Key", "lease-endpoint")
        .json(&json!({"url": url, "enabled_events": ["application.created"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let r = http
        .post(format!("{}/v1/applications", first.base))
        .bearer_auth(&tok)
        .header("Idempotency-Key", "lease-application")
        .json(&json!({"business": {"company_number": "00000401"}, "amount_pence": 5_000}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    eventually("the delivery is in flight", || seen.lock().len() == 1).await;
    drop(first); // SIGKILL while the receiver holds the request

    let _second = crate::support::process::launch_with(&site, &ten_minutes);
    eventually("the in-flight delivery is sent again after restart", || {
        seen.lock().len() == 2
    })
    .await;
    let bodies = seen.lock().clone();
    assert_eq!(bodies[0], bodies[1], "the same event, byte for byte");
}
