//! Several `lendhub serve` processes on one PostgreSQL database behave as one
//! service: shared idempotency, tokens, revocations and outbox; a `kill -9`
//! of one loses nothing acknowledged. These need PostgreSQL whatever the
//! backend under test.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::support::Site;
use crate::support::load::register_endpoint;
use crate::support::process::{Process, cli, cli_with, client_token, credential, launch_with};
use crate::support::receiver::Receiver;

/// Instances that share a database must share the master key.
fn master_key() -> String {
    let key = <lendhub_domain::crypto::MasterKey as lendhub_system::GenerateKey>::generate();
    base64::engine::general_purpose::STANDARD.encode(key.as_bytes())
}

struct Pair {
    a: Process,
    b: Process,
    key: String,
    client_id: String,
    secret: String,
}

fn pair(site: &Site) -> Pair {
    let key = master_key();
    // Instances behind one balancer share the hub's public URL: the token issuer.
    let env = [
        ("LENDHUB_SECRETS__MASTER_KEY", key.as_str()),
        ("LENDHUB_HUB__PUBLIC_URL", "http://hub.lendhub.test"),
    ];
    // One after the other, so only the first creates the demo client.
    let a = launch_with(site, &env);
    let b = launch_with(site, &env);
    Pair {
        key,
        client_id: credential(&a.stdout, "client_id"),
        secret: credential(&a.stdout, "client_secret"),
        a,
        b,
    }
}

fn created_id(body: &str) -> String {
    serde_json::from_str::<Value>(body).unwrap()["data"]["object"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn two_instances_share_keys_tokens_revocations_and_the_outbox() {
    let site = Site::postgres().await;
    let migrated = cli(&site, &["migrate"]);
    assert!(
        migrated.contains("migrations applied to PostgreSQL"),
        "{migrated}"
    );
    let p = pair(&site);
    let http = reqwest::Client::new();
    let token = client_token(&http, &p.a.base, &p.client_id, &p.secret).await;
    let fixtures = http
        .get(format!("{}/v1/fixtures", p.b.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        fixtures.status(),
        200,
        "a token from one instance works on the other"
    );

    let receiver = Receiver::start(&[]).await;
    register_endpoint(&http, &p.b.base, &token, &receiver.url).await;

    // The same key to both instances at once, twenty times over.
    let mut races = Vec::new();
    for n in 0..20 {
        for base in [p.a.base.clone(), p.b.base.clone()] {
            let (http, token) = (http.clone(), token.clone());
            races.push(tokio::spawn(async move {
                let r = http
                    .post(format!("{base}/v1/applications"))
                    .bearer_auth(&token)
                    .header("Idempotency-Key", format!("race-key-{n}"))
                    .json(&json!({"business": {"company_number": "00000401"}, "amount_pence": 10_000 + n}))
                    .send()
                    .await
                    .unwrap();
                let status = r.status().as_u16();
                let body: Value = r.json().await.unwrap();
                (n, status, body)
            }));
        }
    }
    let mut ids: HashMap<i64, HashSet<String>> = HashMap::new();
    for race in races {
        let (n, status, body) = race.await.unwrap();
        match status {
            201 => {
                ids.entry(n)
                    .or_default()
                    .insert(body["id"].as_str().unwrap().to_owned());
            }
            409 => assert_eq!(
                body["error"]["code"], "idempotency_key_in_progress",
                "{body}"
            ),
            other => panic!("race {n}: {other} {body}"),
        }
    }
    assert_eq!(ids.len(), 20, "every key created its application");
    assert!(
        ids.values().all(|s| s.len() == 1),
        "one application per key, whichever instance answered: {ids:?}"
    );

    // Both workers share the outbox: each event is sent once.
    let expected: HashSet<String> = ids.values().flatten().cloned().collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    while receiver.count() < expected.len() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    // Long enough for a second worker's duplicate to arrive, were there one.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let delivered: Vec<String> = receiver.all().iter().map(|r| created_id(&r.body)).collect();
    assert_eq!(
        delivered.len(),
        expected.len(),
        "no event sent twice: {delivered:?}"
    );
    assert_eq!(delivered.into_iter().collect::<HashSet<_>>(), expected);

    // A revocation through the shared database is seen by both.
    cli(&site, &["sandbox", "clients", "revoke", &p.client_id]);
    for base in [&p.a.base, &p.b.base] {
        crate::support::sandbox_token_refused(&http, base, &token).await;
    }
}

/// What a client behind a load balancer does: send to either instance and,
/// when the connection fails, retry the same request with the same key on
/// the other.
async fn create(
    http: &reqwest::Client,
    bases: &[String; 2],
    first: usize,
    token: &str,
    key: &str,
    body: &Value,
) -> Option<Value> {
    for base in [&bases[first], &bases[1 - first]] {
        let sent = http
            .post(format!("{base}/v1/applications"))
            .bearer_auth(token)
            .header("Idempotency-Key", key)
            .json(body)
            .send()
            .await;
        match sent {
            Ok(r) if r.status() == 201 => return r.json().await.ok(),
            Ok(r) if r.status().is_server_error() || r.status() == 409 => continue,
            Ok(r) => panic!("{key}: {}", r.status()),
            Err(_) => continue,
        }
    }
    None
}

#[tokio::test]
async fn kill_9_of_one_instance_loses_nothing_acknowledged() {
    let site = Site::postgres().await;
    let p = pair(&site);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let token = client_token(&http, &p.a.base, &p.client_id, &p.secret).await;
    let receiver = Receiver::start(&[]).await;
    register_endpoint(&http, &p.a.base, &token, &receiver.url).await;

    let bases = [p.a.base.clone(), p.b.base.clone()];
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop_at = Instant::now() + Duration::from_millis(3000);
    let mut writers = Vec::new();
    for w in 0..8usize {
        let (http, bases, token, acked) = (
            http.clone(),
            bases.clone(),
            token.clone(),
            acknowledged.clone(),
        );
        writers.push(tokio::spawn(async move {
            let mut n = 0usize;
            while Instant::now() < stop_at {
                n += 1;
                let key = format!("load-{w}-{n}");
                let body =
                    json!({"business": {"company_number": "00000401"}, "amount_pence": 5_000 + n});
                let Some(app) = create(&http, &bases, (w + n) % 2, &token, &key, &body).await
                else {
                    continue;
                };
                let id = app["id"].as_str().unwrap().to_owned();
                acked.lock().push(id.clone());
                // The rest of the mix: a read and an acceptance, on either instance.
                let base = &bases[n % 2];
                let _ = http
                    .get(format!("{base}/v1/applications/{id}"))
                    .bearer_auth(&token)
                    .send()
                    .await;
                if n.is_multiple_of(3) {
                    let _ = http
                        .post(format!("{base}/v1/applications/{id}/accept"))
                        .bearer_auth(&token)
                        .header("Idempotency-Key", format!("accept-{key}"))
                        .json(&json!({"bank_account": "bank_settle"}))
                        .send()
                        .await;
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let Pair { a, b, .. } = p;
    drop(a); // SIGKILL, mid-load
    for w in writers {
        w.await.unwrap();
    }
    let acked = acknowledged.lock().clone();
    assert!(
        acked.len() > 20,
        "the load wrote too little: {}",
        acked.len()
    );

    for id in &acked {
        let r = http
            .get(format!("{}/v1/applications/{id}", b.base))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "acknowledged application {id} was lost");
    }
    let created =
        crate::support::process::all_events(&http, &b.base, &token, "application.created").await;
    let stored: HashSet<String> = created.iter().cloned().collect();
    assert_eq!(
        stored.len(),
        created.len(),
        "an application was stored twice"
    );
    assert!(acked.iter().all(|id| stored.contains(id)));
    // The survivor delivers everything, including what the dead instance had
    // claimed (its leases lapse after a second).
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let delivered: HashSet<String> =
            receiver.all().iter().map(|r| created_id(&r.body)).collect();
        if delivered == stored {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {} events delivered",
            delivered.len(),
            stored.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn form(
    http: &reqwest::Client,
    url: String,
    id: &str,
    secret: &str,
    form: &[(&str, &str)],
) -> Value {
    let r = http
        .post(url)
        .basic_auth(id, Some(secret))
        .form(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap()
    }
}

/// Partner tokens from one instance are good on the other, a revocation on
/// either is seen by both (at once where it was made, within the directory's
/// sync interval on the other), and the CLI manages partners beside them.
#[tokio::test]
async fn partner_tokens_and_revocations_span_instances() {
    let site = Site::postgres().await;
    let p = pair(&site);
    let http = reqwest::Client::new();
    let key = [("LENDHUB_SECRETS__MASTER_KEY", p.key.as_str())];
    let cli = |args: &[&str]| cli_with(&site, &key, args);
    let created: Value = serde_json::from_str(&cli(&[
        "partner",
        "clients",
        "create",
        "--name",
        "acme",
        "--scopes",
        "mcp.read ops.read",
        "--tier",
        "launch",
    ]))
    .unwrap();
    assert_eq!(created["scopes"], "mcp.read ops.read");
    assert_eq!(created["tier"], "launch");
    let (id, secret) = (
        created["client_id"].as_str().unwrap(),
        created["client_secret"].as_str().unwrap(),
    );
    assert!(id.starts_with("pk_live_") && secret.starts_with("sk_live_"));
    let listed = cli(&["partner", "clients", "list"]);
    assert!(listed.contains(id) && !listed.contains(secret), "{listed}");

    let token = form(
        &http,
        format!("{}/partner/v1/oauth/token", p.a.hub),
        id,
        secret,
        &[("grant_type", "client_credentials")],
    )
    .await;
    let token = token["access_token"].as_str().unwrap().to_owned();
    let introspect = |base: String| {
        let (http, token) = (http.clone(), token.clone());
        async move {
            form(
                &http,
                format!("{base}/partner/v1/oauth/introspect"),
                id,
                secret,
                &[("token", &token)],
            )
            .await["active"]
                .clone()
        }
    };
    assert_eq!(
        introspect(p.b.hub.clone()).await,
        true,
        "A's token is good on B"
    );
    form(
        &http,
        format!("{}/partner/v1/oauth/revoke", p.b.hub),
        id,
        secret,
        &[("token", &token)],
    )
    .await;
    assert_eq!(
        introspect(p.b.hub.clone()).await,
        false,
        "B sees its own revocation at once"
    );
    crate::support::propagated("B's revocation on A", || async {
        introspect(p.a.hub.clone()).await == false
    })
    .await;

    // A rotated secret replaces the old one on every instance.
    let rotated: Value =
        serde_json::from_str(&cli(&["partner", "clients", "rotate-secret", id])).unwrap();
    let new_secret = rotated["client_secret"].as_str().unwrap();
    let token_status = |hub: String, secret: String| {
        let http = http.clone();
        async move {
            http.post(format!("{hub}/partner/v1/oauth/token"))
                .basic_auth(id, Some(secret))
                .form(&[("grant_type", "client_credentials")])
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    for hub in [&p.a.hub, &p.b.hub] {
        crate::support::propagated("the rotated secret", || async {
            token_status(hub.clone(), secret.to_owned()).await == 401
        })
        .await;
    }
    form(
        &http,
        format!("{}/partner/v1/oauth/token", p.a.hub),
        id,
        new_secret,
        &[("grant_type", "client_credentials")],
    )
    .await;
    // Suspension stops new tokens on both.
    cli(&["partner", "clients", "suspend", id]);
    for hub in [&p.a.hub, &p.b.hub] {
        crate::support::propagated("the suspension", || async {
            token_status(hub.clone(), new_secret.to_owned()).await == 403
        })
        .await;
        let r = http
            .post(format!("{hub}/partner/v1/oauth/token"))
            .basic_auth(id, Some(new_secret))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], "account_suspended");
    }
    let rotated_keys: Value = serde_json::from_str(&cli(&["keys", "rotate"])).unwrap();
    assert_eq!(rotated_keys["keys"].as_array().unwrap().len(), 2);
}

/// The REST tier across two instances on one database: an Idempotency-Key
/// sent to both makes one endpoint, an API key made by the CLI works on
/// both, and each event reaches the receiver once, whichever instance
/// stored it and whichever delivered it.
#[tokio::test]
async fn the_rest_tier_shares_idempotency_keys_and_delivers_each_event_once() {
    let site = Site::postgres().await;
    let master = master_key();
    let env = [
        ("LENDHUB_SECRETS__MASTER_KEY", master.as_str()),
        ("LENDHUB_HUB__PUBLIC_URL", "http://hub.lendhub.test"),
        ("LENDHUB_REST_TIER__ENABLED", "true"),
    ];
    let a = launch_with(&site, &env);
    let b = launch_with(&site, &env);
    let cli = |args: &[&str]| cli_with(&site, &env[..1], args);
    let created: Value = serde_json::from_str(&cli(&[
        "partner",
        "clients",
        "create",
        "--name",
        "acme",
        "--scopes",
        "webhooks.manage events.read",
        "--tier",
        "platform",
    ]))
    .unwrap();
    let client = created["client_id"].as_str().unwrap();
    let made: Value = serde_json::from_str(&cli(&[
        "partner",
        "api-keys",
        "create",
        "--client-id",
        client,
        "--environment",
        "live",
    ]))
    .unwrap();
    let key = made["key"].as_str().unwrap().to_owned();
    let http = reqwest::Client::new();
    let receiver = Receiver::start(&[]).await;
    let register = |hub: String| {
        let (http, key, url) = (http.clone(), key.clone(), receiver.url.clone());
        async move {
            let r = http
                .post(format!("{hub}/partner/v1/webhook_endpoints"))
                .bearer_auth(&key)
                .header("Idempotency-Key", "two-instances-endpoint")
                .json(&json!({"url": url, "enabled_events": ["webhook_endpoint.disabled", "webhook_endpoint.enabled"]}))
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    };
    let (on_a, on_b) = tokio::join!(register(a.hub.clone()), register(b.hub.clone()));
    // Both sent at once: one made it, the other replayed it or was told the
    // key was in progress; a retry on B then replays it byte for byte.
    assert!(on_a.0 == 201 || on_b.0 == 201, "{on_a:?} {on_b:?}");
    let replayed = register(b.hub.clone()).await;
    let first = if on_a.0 == 201 { &on_a } else { &on_b };
    assert_eq!(&replayed, first);
    let listed: Value = http
        .get(format!("{}/partner/v1/webhook_endpoints", a.hub))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["data"].as_array().unwrap().len(), 1, "one endpoint");

    // Events made alternately on A and B: each delivered exactly once.
    let other: Value = http
        .post(format!("{}/partner/v1/webhook_endpoints", b.hub))
        .bearer_auth(&key)
        .json(&json!({"url": "https://hooks.example/other", "enabled_events": ["*"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let other = other["id"].as_str().unwrap().to_owned();
    let events = 20;
    for i in 0..events {
        let hub = if i % 2 == 0 { &a.hub } else { &b.hub };
        let r = http
            .post(format!("{hub}/partner/v1/webhook_endpoints/{other}"))
            .bearer_auth(&key)
            .json(&json!({"disabled": i % 2 == 0}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    crate::support::eventually("every event delivered", || receiver.count() >= events).await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let ids: Vec<String> = receiver
        .all()
        .iter()
        .map(|r| {
            serde_json::from_str::<Value>(&r.body).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let distinct: HashSet<&String> = ids.iter().collect();
    assert_eq!(ids.len(), events, "no duplicates: {ids:?}");
    assert_eq!(distinct.len(), events);
}
