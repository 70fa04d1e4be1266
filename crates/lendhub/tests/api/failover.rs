//! The PostgreSQL primary killed under load (issue #19): two instances on a
//! primary with a synchronous standby, reached through a multi-host URL
//! with `target_session_attrs=read-write`. pg_auto_failover promotes the
//! standby; lendhub answers 503 with the envelope meanwhile, reconnects by
//! itself, and every write acknowledged before, during and after is there
//! exactly once, its event delivered. Runs with the PostgreSQL suite: it
//! needs Debian's pg_auto_failover and a minute and a half.

use std::time::Duration;

use base64::Engine;

use crate::support::Site;
use crate::support::database::{Backend, FailoverCluster, backend};
use crate::support::load::{Load, assert_exactly_once_and_delivered, register_endpoint};
use crate::support::process::{Process, client_token, credential, launch_with};
use crate::support::receiver::Receiver;

/// Instances that share a database must share the master key.
pub fn shared_master_key() -> String {
    base64::engine::general_purpose::STANDARD.encode(
        <lendhub_domain::crypto::MasterKey as lendhub_system::GenerateKey>::generate().as_bytes(),
    )
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
    let key = shared_master_key();
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
    register_endpoint(&http, &a.base, &token, &receiver.url).await;

    let bases = [a.base.clone(), b.base.clone()];
    let load = Load::start(&http, &bases, &token, 6);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = load.seen.lock().acknowledged.len();
    let old = cluster.kill_primary().await;
    let killed_at = load.started.elapsed();
    let new = cluster.wait_primary(&old, 120).await;
    let promoted_at = load.started.elapsed();
    // Load goes on until both instances have written through the new
    // primary for a while.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while load.acks_since(promoted_at) <= 40 {
        assert!(
            std::time::Instant::now() < deadline,
            "no recovery after the promotion: {:?}\n{}",
            load.seen.lock().refusals,
            cluster.state()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let seen = load.finish().await;
    eprintln!(
        "failover: primary {old} killed at {killed_at:?}, {new} promoted at {promoted_at:?}; \
         {} acknowledged ({before} before the kill, {} during the switch); \
         longest time without an acknowledgement {:?}; refusals {:?}",
        seen.acknowledged.len(),
        seen.acks_between(killed_at, promoted_at),
        seen.longest_gap(),
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
    let repeats =
        assert_exactly_once_and_delivered(&http, &bases, &token, &seen, &[], &receiver).await;
    eprintln!("failover: {repeats} deliveries repeated");
}
