//! The status page (`{status_url}`): every component from live probes,
//! incidents and maintenance windows written with the operator CLI, the day
//! history kept in the database, Statuspage's `summary.json`, an Atom feed
//! read by feedparser, and — on PostgreSQL — a database outage seen in
//! headless Chromium before, during and after, the page itself staying up.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::database::{PrivateCluster, create_database};
use crate::support::process::cli;
use crate::support::{App, Site, python_json, test_config};

fn status_url(app: &App, path: &str) -> String {
    format!("http://{}{path}", app.server().status_addr)
}

async fn summary(app: &App) -> Value {
    get_json(app, "/api/v2/summary.json").await
}

async fn get_json(app: &App, path: &str) -> Value {
    let r = app.http.get(status_url(app, path)).send().await.unwrap();
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

/// Asks for a probe round and waits for it to be published (the clock is
/// moved a second so that the round's time differs from the last).
async fn probe(app: &App) -> Value {
    let before = summary(app).await["page"]["updated_at"].clone();
    app.clock.advance(time::Duration::seconds(1));
    app.server().status_wake.notify_one();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = summary(app).await;
        if now["page"]["updated_at"] != before && !now["components"].as_array().unwrap().is_empty()
        {
            return now;
        }
        assert!(Instant::now() < deadline, "no probe round was published");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn statuses(summary: &Value) -> Vec<(String, String)> {
    summary["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn status_of(summary: &Value, key: &str) -> String {
    statuses(summary)
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("no component {key}: {summary}"))
}

const COMPONENTS: [&str; 7] = [
    "sandbox",
    "partner_ring",
    "rest_tier",
    "public_ring",
    "identity_provider",
    "webhook_delivery",
    "database",
];

async fn app_with_rest_tier() -> App {
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    App::spawn_with(config, site).await
}

#[tokio::test]
async fn every_component_is_probed_and_counted_into_its_day() {
    let app = app_with_rest_tier().await;
    let first = probe(&app).await;
    let keys: Vec<String> = statuses(&first).into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, COMPONENTS, "{first}");
    for (key, status) in statuses(&first) {
        assert_eq!(status, "operational", "{key}: {first}");
    }
    assert_eq!(first["status"]["indicator"], "none");
    assert_eq!(first["status"]["description"], "All Systems Operational");
    assert_eq!(first["page"]["url"], app.server().status_url);
    assert_eq!(first["incidents"], serde_json::json!([]));
    assert_eq!(first["scheduled_maintenances"], serde_json::json!([]));
    let sandbox = &first["components"][0];
    assert_eq!(sandbox["page_id"], first["page"]["id"]);
    assert!(
        sandbox["probe"]["detail"]
            .as_str()
            .unwrap()
            .starts_with("answered 200 in"),
        "{sandbox}"
    );

    let webhooks = &first["components"][5];
    assert_eq!(webhooks["id"], "webhook_delivery");
    assert_eq!(
        webhooks["probe"]["detail"], "no delivery waiting",
        "{webhooks}"
    );

    probe(&app).await;
    let today =
        lendhub_status::prober::day_of(lendhub_domain::clock::Clock::now_ms(app.clock.as_ref()));
    let days = app.server().store.status_days(&today).await.unwrap();
    assert_eq!(days.len(), COMPONENTS.len(), "{days:?}");
    for d in &days {
        assert_eq!(d.day, today);
        assert_eq!(
            d.tally.operational, 2,
            "two rounds, each counted once: {d:?}"
        );
        assert_eq!(d.tally.samples(), 2);
    }

    let status: Value = get_json(&app, "/api/v2/status.json").await;
    assert_eq!(status["status"]["indicator"], "none");
    let missing = app
        .http
        .get(status_url(&app, "/api/v2/nothing.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.unwrap();
    assert_eq!(body["error"]["code"], "resource_not_found", "{body}");
    let page = app
        .http
        .get(status_url(&app, "/nowhere"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 404);
    assert!(page.text().await.unwrap().contains("Page not found"));
}

/// The REST tier switched off (the vendor's state) is not a component.
#[tokio::test]
async fn a_switched_off_rest_tier_is_not_on_the_page() {
    let site = Site::new().await;
    let config = test_config(&site);
    let without_tier = App::spawn_with(config, site).await;
    let s = probe(&without_tier).await;
    let keys: Vec<String> = statuses(&s).into_iter().map(|(k, _)| k).collect();
    assert!(
        !keys.contains(&"rest_tier".to_owned()),
        "an off tier is not on the page: {s}"
    );
    assert_eq!(s["status"]["indicator"], "none");
}

#[tokio::test]
async fn incidents_and_windows_are_written_with_the_cli_and_shown_everywhere() {
    let app = app_with_rest_tier().await;
    let site = &app._site;
    let opened: Value = serde_json::from_str(&cli(
        site,
        &[
            "status",
            "open",
            "--name",
            "Slow partner tokens <script>",
            "--impact",
            "minor",
            "--component",
            "partner_ring",
            "--message",
            "We are looking into slow token issuance & introspection.",
        ],
    ))
    .unwrap();
    let id = opened["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("inc_"), "{opened}");
    assert_eq!(opened["status"], "investigating");

    let s = probe(&app).await;
    let incident = &s["incidents"][0];
    assert_eq!(incident["id"], id.as_str(), "{s}");
    // What a person sees, checked for accessibility and layout as they see
    // it: the page with the incident open, and the incident's own page.
    let seen = python_json("status_browser.py", vec![("URL", status_url(&app, "/"))]).await;
    assert_eq!(seen["incidents"], serde_json::json!([id]), "{seen}");
    assert_eq!(seen["incident_heading"], "Slow partner tokens <script>");
    let audited: Vec<&str> = seen["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        audited,
        ["status-none", "status-incident"],
        "the probes see no outage"
    );
    assert_eq!(incident["impact"], "minor");
    assert_eq!(incident["components"][0]["id"], "partner_ring");
    assert_eq!(incident["incident_updates"][0]["status"], "investigating");
    assert_eq!(
        incident["shortlink"],
        format!("{}/incidents/{id}", app.server().status_url)
    );

    // A move the kind does not have, and a closed incident, are refused.
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_lendhub"))
        .args([
            "status",
            "update",
            &id,
            "--status",
            "completed",
            "--message",
            "x",
        ])
        .envs(site.env())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("not a status of an incident"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    cli(
        site,
        &[
            "status",
            "update",
            &id,
            "--status",
            "monitoring",
            "--message",
            "A fix is out.",
        ],
    );
    let resolved: Value = serde_json::from_str(&cli(
        site,
        &[
            "status",
            "update",
            &id,
            "--status",
            "resolved",
            "--message",
            "Tokens are fast again.",
        ],
    ))
    .unwrap();
    assert_eq!(resolved["status"], "resolved");
    assert!(resolved["resolved_at"].is_string());
    assert_eq!(resolved["updates"].as_array().unwrap().len(), 3);

    // A window over now puts its component under maintenance until completed.
    let now = time::OffsetDateTime::now_utc();
    let fmt = |t: time::OffsetDateTime| {
        t.format(&time::format_description::well_known::Rfc3339)
            .unwrap()
    };
    let window: Value = serde_json::from_str(&cli(
        site,
        &[
            "status",
            "schedule",
            "--name",
            "Database upgrade",
            "--from",
            &fmt(now - time::Duration::minutes(5)),
            "--until",
            &fmt(now + time::Duration::hours(2)),
            "--component",
            "database",
            "--message",
            "PostgreSQL 17, with a short read-only spell.",
        ],
    ))
    .unwrap();
    let window_id = window["id"].as_str().unwrap().to_owned();
    let s = probe(&app).await;
    assert_eq!(status_of(&s, "database"), "under_maintenance", "{s}");
    assert_eq!(status_of(&s, "sandbox"), "operational");
    assert_eq!(s["status"]["indicator"], "maintenance");
    assert_eq!(
        s["incidents"],
        serde_json::json!([]),
        "resolved incidents leave the summary"
    );
    assert_eq!(s["scheduled_maintenances"][0]["id"], window_id.as_str());
    assert!(s["scheduled_maintenances"][0]["scheduled_until"].is_string());
    let all: Value = get_json(&app, "/api/v2/incidents.json").await;
    assert_eq!(
        all["incidents"][0]["id"],
        id.as_str(),
        "the last 90 days: {all}"
    );
    assert_eq!(all["incidents"][0]["status"], "resolved");

    // The page and the incident's own page, escaped.
    let html = app.http.get(status_url(&app, "/")).send().await.unwrap();
    assert_eq!(html.status(), 200);
    assert!(
        html.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("default-src 'none'")
    );
    let html = html.text().await.unwrap();
    assert!(html.contains("Database upgrade"), "{html}");
    assert!(
        html.contains("Slow partner tokens &#60;script&#62;")
            || html.contains("Slow partner tokens &lt;script&gt;"),
        "{html}"
    );
    assert!(!html.contains("<script>"));
    let one = app
        .http
        .get(status_url(&app, &format!("/incidents/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(one.status(), 200);
    let one = one.text().await.unwrap();
    assert!(one.contains("Tokens are fast again."), "{one}");
    assert!(one.contains("introspection"));
    let none = app
        .http
        .get(status_url(
            &app,
            "/incidents/inc_00000000000000000000000000",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(none.status(), 404);

    // The feed, read by a real feed reader.
    let feed = python_json(
        "status_feed.py",
        vec![("URL", status_url(&app, "/history.atom"))],
    )
    .await;
    assert_eq!(feed["version"], "atom10", "{feed}");
    assert_eq!(feed["bozo"], false, "{feed}");
    assert!(
        feed["content_type"]
            .as_str()
            .unwrap()
            .starts_with("application/atom+xml")
    );
    let entries = feed["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{feed}");
    let incident = entries
        .iter()
        .find(|e| e["title"] == "Slow partner tokens <script>")
        .unwrap_or_else(|| panic!("{feed}"));
    assert_eq!(
        incident["link"],
        format!("{}/incidents/{id}", app.server().status_url)
    );
    let summary = incident["summary"].as_str().unwrap();
    assert!(summary.contains("Tokens are fast again."), "{summary}");
    assert!(
        summary.contains("slow token issuance &amp; introspection"),
        "{summary}"
    );

    cli(
        site,
        &[
            "status",
            "update",
            &window_id,
            "--status",
            "completed",
            "--message",
            "Done.",
        ],
    );
    let s = probe(&app).await;
    assert_eq!(status_of(&s, "database"), "operational", "{s}");
    assert_eq!(s["status"]["indicator"], "none");
}

/// PostgreSQL stopped under a page probing every second: within 30 s the
/// page (in Chromium) shows the outage, still answering 200 with what it
/// knew; restarted, it recovers by itself; the outage is in the day's
/// history.
#[tokio::test]
async fn a_database_outage_shows_on_the_page_which_stays_up() {
    let cluster = PrivateCluster::start();
    let site = Site {
        dir: tempfile::tempdir().unwrap(),
        database_url: Some(create_database(&cluster.admin_url).await),
    };
    let mut config = test_config(&site);
    config.database.timeout_ms = 500;
    config.rest_tier.enabled = true;
    config.status.probe_interval_seconds = 1;
    config.status.probe_timeout_ms = 1_000;
    let app = App::spawn_with(config, site).await;
    let browse = || python_json("status_browser.py", vec![("URL", status_url(&app, "/"))]);

    let deadline = Instant::now() + Duration::from_secs(20);
    while summary(&app).await["components"]
        .as_array()
        .unwrap()
        .is_empty()
    {
        assert!(Instant::now() < deadline, "no first round");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let before = browse().await;
    assert_eq!(before["http_status"], 200, "{before}");
    assert_eq!(before["indicator"], "none", "{before}");
    assert_eq!(before["components"].as_object().unwrap().len(), 7);
    assert_eq!(before["components"]["database"]["status"], "operational");
    assert_eq!(before["components"]["database"]["bars"], 90);
    assert_eq!(before["stale"], false);
    assert_eq!(before["refreshes"], 0, "nothing reloads unasked");
    assert_eq!(before["asked_refreshes"], "30", "{before}");
    assert_eq!(before["refresh_link"], "Stop refreshing");
    assert_eq!(before["stopped_refreshes"], 0);

    cluster.stop();
    let stopped = Instant::now();
    loop {
        let s = summary(&app).await;
        if status_of(&s, "database") == "major_outage" {
            break;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(30),
            "not shown in 30 s: {s}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let shown_after = stopped.elapsed();
    eprintln!("the outage was on the page {shown_after:?} after PostgreSQL stopped");
    let during = browse().await;
    assert_eq!(during["http_status"], 200, "{during}");
    assert_eq!(during["indicator"], "critical", "{during}");
    assert_eq!(during["banner"], "Major System Outage");
    assert_eq!(during["stale"], true, "{during}");
    let c = &during["components"];
    assert_eq!(c["database"]["status"], "major_outage", "{during}");
    assert_eq!(c["sandbox"]["status"], "major_outage");
    assert_eq!(c["partner_ring"]["status"], "major_outage");
    assert_eq!(c["webhook_delivery"]["status"], "major_outage");
    assert_eq!(
        c["public_ring"]["status"], "partial_outage",
        "quotes still work: {during}"
    );
    assert_eq!(c["database"]["label"], "Major outage");

    cluster.restart();
    let restarted = Instant::now();
    loop {
        let s = summary(&app).await;
        if s["status"]["indicator"] == "none" {
            break;
        }
        assert!(
            restarted.elapsed() < Duration::from_secs(30),
            "never recovered: {s}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let after = browse().await;
    assert_eq!(after["indicator"], "none", "{after}");
    assert_eq!(after["stale"], false, "{after}");
    assert_eq!(after["components"]["database"]["status"], "operational");

    // The rounds made while the database was down were kept and written
    // once it answered: today's history holds the outage.
    let today =
        lendhub_status::prober::day_of(lendhub_domain::clock::Clock::now_ms(app.clock.as_ref()));
    let days = app.server().store.status_days(&today).await.unwrap();
    let database = days.iter().find(|d| d.component == "database").unwrap();
    assert!(database.tally.major >= 1, "{database:?}");
    assert!(database.tally.operational >= 2, "{database:?}");
}
