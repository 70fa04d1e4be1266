//! Limits that hold across instances (issue #19): two instances on one
//! database share a Valkey/Redis server (`limits.shared_url`), so a
//! partner's token bucket, its concurrency cap and an address's public
//! window are spent once whichever instance answers, not once per instance.
//! Needs Debian's redis-server (the test command installs it) and
//! PostgreSQL, whatever the backend under test.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::failover::shared_master_key;
use crate::support::Site;
use crate::support::process::{cli_with, launch_with};

/// A throwaway Redis-protocol server on loopback, nothing kept on disk.
struct Valkey {
    child: Child,
    url: String,
}

impl Valkey {
    fn start() -> Valkey {
        let port = crate::support::unclaimed_port();
        let server = ["valkey-server", "redis-server"]
            .into_iter()
            .find(|s| {
                Command::new("which")
                    .arg(s)
                    .output()
                    .is_ok_and(|o| o.status.success())
            })
            .expect(
                "shared limits need valkey-server or redis-server (scripts/test.sh installs it)",
            );
        let child = Command::new(server)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "{server} did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Valkey {
            child,
            url: format!("redis://127.0.0.1:{port}/"),
        }
    }
}

impl Drop for Valkey {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn two_instances_spend_one_bucket_and_one_window() {
    let valkey = Valkey::start();
    let shared_url = valkey.url.clone();
    let site = Site::postgres().await;
    let key = shared_master_key();
    let env = [
        ("LENDHUB_SECRETS__MASTER_KEY", key.as_str()),
        ("LENDHUB_HUB__PUBLIC_URL", "http://hub.lendhub.test"),
        ("LENDHUB_LIMITS__SHARED_URL", shared_url.as_str()),
        // A window no run of this test straddles.
        ("LENDHUB_PUBLIC__RATE_LIMIT_REQUESTS", "20"),
        ("LENDHUB_PUBLIC__RATE_LIMIT_WINDOW_SECONDS", "3600"),
        // The test's requests come from an address of their own (the status
        // page's probes come from loopback too).
        ("LENDHUB_PUBLIC__TRUSTED_PROXIES", "127.0.0.1/32"),
    ];
    let a = launch_with(&site, &env);
    let b = launch_with(&site, &env);
    let created = build_tier_partner(&site, &env, "acme");
    let (id, secret) = (
        created["client_id"].as_str().unwrap(),
        created["client_secret"].as_str().unwrap(),
    );
    let http = reqwest::Client::new();

    // The build tier: a burst of 50, 10 a second, 10 at once. A hundred and
    // fifty token requests, alternating instances as fast as they answer:
    // one bucket admits the burst and what refilled meanwhile; two buckets
    // would admit at least a hundred.
    let started = Instant::now();
    let mut admitted = 0usize;
    let mut refused = Vec::new();
    for n in 0..150 {
        let hub = if n % 2 == 0 { &a.hub } else { &b.hub };
        let r = http
            .post(format!("{hub}/partner/v1/oauth/token"))
            .basic_auth(id, Some(secret))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .unwrap();
        match r.status().as_u16() {
            200 => admitted += 1,
            429 => refused.push((
                r.headers()["ratelimit-remaining"]
                    .to_str()
                    .unwrap()
                    .to_owned(),
                r.headers().contains_key("retry-after"),
            )),
            other => panic!("token request {n}: {other}"),
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    // Each admitted request held a concurrent slot and gave it back: with
    // slots that were never released, the eleventh would have been refused.
    let refilled = (elapsed * 10.0).ceil() as usize;
    assert!(
        refilled < 50,
        "too slow to tell one bucket from two: {elapsed:.2} s"
    );
    assert!(
        (50..=50 + refilled).contains(&admitted),
        "{admitted} admitted of 150 in {elapsed:.2} s (one bucket allows 50 + {refilled})"
    );
    assert!(
        refused
            .iter()
            .all(|(remaining, retry)| remaining == "0" && *retry),
        "{refused:?}"
    );

    // The public window: 20 per address, whichever instance answers.
    let mut allowed = 0;
    for n in 0..30 {
        let hub = if n % 2 == 0 { &a.hub } else { &b.hub };
        let r = http
            .get(format!("{hub}/public/v1/products"))
            .header("X-Forwarded-For", "198.51.100.7")
            .send()
            .await
            .unwrap();
        match r.status().as_u16() {
            200 => allowed += 1,
            429 => {}
            other => panic!("public request {n}: {other}"),
        }
    }
    assert_eq!(allowed, 20, "one window across both instances");

    // Without the server, each instance falls back to its own limits at
    // once: answers go on, never an error, never a stall.
    drop(valkey);
    let asked = Instant::now();
    let r = http
        .get(format!("{}/public/v1/products", a.hub))
        .header("X-Forwarded-For", "198.51.100.8")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "this instance's own window has room");
    let other = build_tier_partner(&site, &env, "other");
    for hub in [&a.hub, &b.hub] {
        let r = http
            .post(format!("{hub}/partner/v1/oauth/token"))
            .basic_auth(
                other["client_id"].as_str().unwrap(),
                Some(other["client_secret"].as_str().unwrap()),
            )
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "the instance's own bucket admits it");
    }
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "the fallback took {:?}",
        asked.elapsed()
    );
}

/// A build-tier partner holding `mcp.read`, made with the CLI as an operator
/// would: its `client_id` and `client_secret`.
fn build_tier_partner(site: &Site, env: &[(&str, &str)], name: &str) -> Value {
    serde_json::from_str(&cli_with(
        site,
        env,
        &[
            "partner", "clients", "create", "--name", name, "--scopes", "mcp.read", "--tier",
            "build",
        ],
    ))
    .unwrap()
}
