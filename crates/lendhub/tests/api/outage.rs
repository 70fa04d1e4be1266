//! The database going away, or every connection being busy, answers 503 with
//! the error envelope at once (never a hang), health says so, and service
//! comes back by itself. PostgreSQL only: that is where the database is a
//! separate process that can be stopped.

use std::time::{Duration, Instant};

use crate::support::database::{PrivateCluster, connect, create_database};
use crate::support::{App, Reply, Site, assert_error, reply, test_config};

async fn ops_health(app: &App) -> Reply {
    let ops = app.server.as_ref().unwrap().ops_addr;
    reply(
        app.http
            .get(format!("http://{ops}/healthz"))
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// A bound on "answers at once": far below the 30 s request timeout.
const PROMPT: Duration = Duration::from_secs(5);

#[tokio::test]
async fn a_database_outage_answers_503_and_service_recovers_by_itself() {
    let cluster = PrivateCluster::start();
    let site = Site {
        dir: tempfile::tempdir().unwrap(),
        database_url: Some(create_database(&cluster.admin_url).await),
    };
    let mut config = test_config(&site);
    config.database.timeout_ms = 500;
    let app = App::spawn_with(config, site).await;
    let token = app.caller().await;
    let before = app.create_application(&token, "00000401", 10_000).await;
    assert_eq!(before.status, 201);
    let id = before.body["id"].as_str().unwrap().to_owned();

    cluster.stop();
    let started = Instant::now();
    let write = app.create_application(&token, "00000401", 10_000).await;
    assert_error(&write, 503, "service_unavailable");
    assert_eq!(write.header("retry-after"), "1");
    let read = app.get(&token, &format!("/v1/applications/{id}")).await;
    assert_error(&read, 503, "service_unavailable");
    let health = ops_health(&app).await;
    assert_eq!(health.status, 503);
    assert_eq!(health.body["database"], "down");
    let sandbox_health = reply(app.http.get(app.url("/healthz")).send().await.unwrap()).await;
    assert_error(&sandbox_health, 503, "service_unavailable");
    assert!(started.elapsed() < PROMPT, "took {:?}", started.elapsed());

    cluster.restart();
    let deadline = Instant::now() + Duration::from_secs(20);
    while ops_health(&app).await.status != 200 {
        assert!(Instant::now() < deadline, "health never recovered");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let read = app.get(&token, &format!("/v1/applications/{id}")).await;
    assert_eq!(read.status, 200, "{}", read.body);
    let write = app.create_application(&token, "00000401", 10_000).await;
    assert_eq!(write.status, 201, "{}", write.body);
}

#[tokio::test]
async fn an_exhausted_pool_answers_503_not_a_hang() {
    let site = Site::postgres().await;
    let url = site.database_url.clone().unwrap();
    let mut config = test_config(&site);
    config.database.pool_size = 2;
    // Long enough for start-up's migrations on a busy machine (the suite
    // runs four servers at once on two cores), short against `PROMPT`.
    config.database.timeout_ms = 1_000;
    config.database.statement_timeout_ms = 1_000;
    let app = App::spawn_with(config, site).await;
    let token = app.caller().await;
    let created = app.create_application(&token, "00000401", 10_000).await;
    let id = created.body["id"].as_str().unwrap().to_owned();

    // Another session holds a lock every read of an application waits on.
    let mut blocker = connect(&url).await;
    let lock = blocker.transaction().await.unwrap();
    lock.batch_execute("LOCK TABLE applications IN ACCESS EXCLUSIVE MODE")
        .await
        .unwrap();
    let started = Instant::now();
    let path = format!("/v1/applications/{id}");
    let reads: Vec<_> = (0..6).map(|_| app.get(&token, &path)).collect();
    for r in futures_util::future::join_all(reads).await {
        assert_error(&r, 503, "service_unavailable");
    }
    assert!(started.elapsed() < PROMPT, "took {:?}", started.elapsed());
    lock.rollback().await.unwrap();

    let read = app.get(&token, &format!("/v1/applications/{id}")).await;
    assert_eq!(read.status, 200, "{}", read.body);
}
