//! Network faults between an instance and its database (issue #19): two
//! instances, each on a host of its own (a network namespace joined to the
//! root by a veth pair, `scripts/netns.sh`), reaching PostgreSQL through
//! their own relay. Under a steady write load, instance a is cut off from
//! the database (nftables drops every packet of its link), then healed; then
//! its link gets 200 ms of delay each way (the relay) and 5 % packet loss
//! (nftables). Throughout: no acknowledged write lost or duplicated, clear
//! 503s from the instance that cannot reach the database, recovery by
//! itself, every event delivered. Needs root (CAP_NET_ADMIN); runs with the
//! PostgreSQL suite.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::failover::shared_master_key;
use crate::support::Site;
use crate::support::database::{Backend, backend};
use crate::support::load::{Load, assert_exactly_once_and_delivered, register_endpoint};
use crate::support::process::{client_token, credential, launch_in_netns};
use crate::support::receiver::Receiver;
use crate::support::relay::Relay;

const NETNS_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/netns.sh");

fn netns(args: &[&str]) {
    let out = std::process::Command::new("bash")
        .arg(NETNS_SCRIPT)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "netns.sh {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A namespace and its link, removed however the test ends.
struct Host {
    name: String,
    link: String,
}

impl Host {
    fn up(name: &str, link: u8) -> Host {
        let host = Host {
            name: name.to_owned(),
            link: link.to_string(),
        };
        // What a crashed earlier run may have left.
        netns(&["down", &host.name, &host.link]);
        netns(&["up", &host.name, &host.link]);
        host
    }

    /// Its address as the root namespace reaches it.
    fn addr(&self) -> String {
        format!("10.79.{}.2", self.link)
    }

    /// The root namespace's address on its link.
    fn gateway(&self) -> String {
        format!("10.79.{}.1", self.link)
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = std::process::Command::new("bash")
            .arg(NETNS_SCRIPT)
            .args(["down", &self.name, &self.link])
            .output();
    }
}

/// `url` with its host and port replaced by `addr`.
fn through(url: &str, addr: std::net::SocketAddr) -> String {
    let (scheme_user, rest) = url.split_once('@').unwrap();
    let path = &rest[rest.find('/').unwrap()..];
    format!("{scheme_user}@{addr}{path}")
}

/// Creates an application on `base` with `key`: its id, once acknowledged,
/// and how long that took (retrying every 200 ms).
async fn written(http: &reqwest::Client, base: &str, token: &str, key: &str) -> (String, Duration) {
    let started = Instant::now();
    loop {
        let r = http
            .post(format!("{base}/v1/applications"))
            .bearer_auth(token)
            .header("Idempotency-Key", key)
            .json(&json!({"business": {"company_number": "00000401"}, "amount_pence": 7_500}))
            .send()
            .await;
        if let Ok(r) = r
            && r.status() == 201
        {
            let app: serde_json::Value = r.json().await.unwrap();
            return (app["id"].as_str().unwrap().to_owned(), started.elapsed());
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "{base} never recovered"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_partitioned_or_lossy_link_loses_nothing_and_heals_by_itself() {
    if !matches!(backend(), Backend::Postgres { .. }) {
        eprintln!("partitions: run with TEST_BACKEND=postgres");
        return;
    }
    let (host_a, host_b) = (Host::up("lendhub-a", 71), Host::up("lendhub-b", 72));
    let site_a = Site::postgres().await;
    let url = site_a.database_url.clone().unwrap();
    let pg: std::net::SocketAddr = url
        .split_once('@')
        .unwrap()
        .1
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let relay_a = Relay::start(&host_a.gateway(), pg);
    let relay_b = Relay::start(&host_b.gateway(), pg);
    let site = |relay: &Relay| Site {
        dir: tempfile::tempdir().unwrap(),
        database_url: Some(through(&url, relay.addr)),
    };
    let (site_a, site_b) = (site(&relay_a), site(&relay_b));
    let key = shared_master_key();
    let env = [
        ("LENDHUB_SECRETS__MASTER_KEY", key.as_str()),
        ("LENDHUB_HUB__PUBLIC_URL", "http://hub.lendhub.test"),
        ("LENDHUB_DATABASE__TIMEOUT_MS", "1000"),
        ("LENDHUB_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "10.79.0.0/16"),
    ];
    let a = launch_in_netns(&site_a, &env, &host_a.name, &host_a.addr());
    let b = launch_in_netns(&site_b, &env, &host_b.name, &host_b.addr());
    let (client_id, secret) = (
        credential(&a.stdout, "client_id"),
        credential(&a.stdout, "client_secret"),
    );
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(40))
        .build()
        .unwrap();
    let token = client_token(&http, &a.base, &client_id, &secret).await;
    // Both namespaces reach the root's side of a's link through their own.
    let receiver = Receiver::start_on(&host_a.gateway(), &[]).await;
    register_endpoint(&http, &b.base, &token, &receiver.url).await;
    let (known, _) = written(&http, &a.base, &token, "partition-known").await;

    let bases = [a.base.clone(), b.base.clone()];
    let load = Load::start(&http, &bases, &token, 6);
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Cut off: a answers 503 promptly, and b goes on.
    let port = relay_a.addr.port().to_string();
    netns(&["cut", &host_a.name, &port]);
    let cut_at = load.started.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let asked = Instant::now();
    let read = http
        .get(format!("{}/v1/applications/{known}", a.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    let answered_in = asked.elapsed();
    assert_eq!(read.status(), 503, "a read on the cut-off instance");
    assert!(read.headers().contains_key("retry-after"));
    let body: serde_json::Value = read.json().await.unwrap();
    assert_eq!(body["error"]["code"], "service_unavailable");
    tokio::time::sleep(Duration::from_secs(9)).await;
    netns(&["heal", &host_a.name]);
    let healed_at = load.started.elapsed();
    let (after_cut, a_back_in) = written(&http, &a.base, &token, "partition-after-cut").await;

    // A slow, lossy link: 200 ms each way and 5 % of packets dropped.
    tokio::time::sleep(Duration::from_secs(2)).await;
    relay_a.delay(Duration::from_millis(200));
    netns(&["lossy", &host_a.name, &port, "5"]);
    let lossy_at = load.started.elapsed();
    // a itself writes over the slow, lossy link.
    let (over_lossy, a_lossy_in) = written(&http, &a.base, &token, "partition-lossy").await;
    tokio::time::sleep(Duration::from_secs(10).saturating_sub(a_lossy_in)).await;
    let lossy_acks = load.acks_since(lossy_at);
    relay_a.delay(Duration::ZERO);
    netns(&["heal", &host_a.name]);
    let lossy_until = load.started.elapsed();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let seen = load.finish().await;

    let repeats = assert_exactly_once_and_delivered(
        &http,
        &bases,
        &token,
        &seen,
        &[known, after_cut, over_lossy],
        &receiver,
    )
    .await;
    eprintln!(
        "partitions: {} acknowledged; cut {cut_at:?}–{healed_at:?}: {} acknowledged meanwhile, \
         a read on a answered 503 in {answered_in:?}, a wrote again {a_back_in:?} after the heal; \
         lossy {lossy_at:?}–{lossy_until:?}: {lossy_acks} acknowledged, a wrote over it in \
         {a_lossy_in:?}; longest time without an \
         acknowledgement {:?}; refusals {:?}; {repeats} deliveries repeated",
        seen.acknowledged.len(),
        seen.acks_between(cut_at, healed_at),
        seen.longest_gap(),
        seen.refusals
    );
    assert!(
        answered_in < Duration::from_secs(10),
        "the cut-off instance took {answered_in:?} to answer"
    );
    // b's link stayed whole, but a transaction a had open when its link
    // was cut (or that crawls over the lossy link) keeps its row locks on
    // the server until the server ends it (`idle_in_transaction_session_
    // timeout`, 5 s), so b may wait on them that long, and not much longer.
    assert!(
        seen.longest_gap() < Duration::from_secs(15),
        "{:?} without any acknowledgement",
        seen.longest_gap()
    );
    assert!(
        a_back_in < Duration::from_secs(25),
        "a took {a_back_in:?} to write again after the heal"
    );
    assert!(lossy_acks > 0, "nothing written during the lossy period");
    for refusal in seen.refusals.keys() {
        assert_eq!(
            refusal, "503 service_unavailable retry-after=true",
            "{:?}",
            seen.refusals
        );
    }
}
