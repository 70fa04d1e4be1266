//! The operator's view: the CLI beside a running server, metrics, JSON logs
//! and a graceful stop on SIGTERM.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::process::{cli, client_token, launch, launch_logging};

async fn metrics_text(http: &reqwest::Client, ops: &str) -> String {
    let r = http.get(format!("{ops}/metrics")).send().await.unwrap();
    r.text().await.unwrap()
}

fn lendhub() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lendhub"));
    // The test run's own settings must not leak into these processes.
    command
        .env_remove("LENDHUB_LOG")
        .env_remove("LENDHUB_DATABASE_URL");
    command
}

#[tokio::test]
async fn clients_are_managed_from_the_cli_while_the_server_runs() {
    let site = crate::support::Site::new().await;
    let server = launch(&site);
    let http = reqwest::Client::new();
    let created: Value = serde_json::from_str(&cli(
        &site,
        &[
            "sandbox",
            "clients",
            "create",
            "--name",
            "acme",
            "--scopes",
            "sandbox:read",
        ],
    ))
    .unwrap();
    let id = created["client_id"].as_str().unwrap();
    let secret = created["client_secret"].as_str().unwrap();
    assert!(id.starts_with("pk_test_") && secret.starts_with("sk_test_"));
    assert_eq!(created["scopes"], "sandbox:read");
    let token = client_token(&http, &server.base, id, secret).await;
    let listed = cli(&site, &["sandbox", "clients", "list"]);
    assert!(
        listed
            .lines()
            .any(|l| l.contains(id) && l.contains("\"active\"")),
        "{listed}"
    );
    assert!(!listed.contains(secret), "secrets are never listed");
    cli(&site, &["sandbox", "clients", "revoke", id]);
    crate::support::sandbox_token_refused(&http, &server.base, &token).await;
    // The ops listener exposes Prometheus metrics for what was served.
    let metrics = metrics_text(&http, &server.ops).await;
    assert!(metrics.contains("http_requests_total"), "{metrics}");
    assert!(metrics.contains("route=\"/oauth/token\""), "{metrics}");
}

#[tokio::test]
async fn sigterm_stops_the_server_gracefully() {
    let site = crate::support::Site::new().await;
    let mut server = launch(&site);
    let pid = server.child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = server.child.wait().unwrap();
    assert!(status.success(), "exit after SIGTERM: {status}");
    // The data directory opens cleanly again, and the demo client is not re-created.
    let again = launch(&site);
    assert!(
        !again
            .stdout
            .iter()
            .any(|l| l.contains("demo sandbox client"))
    );
}

#[test]
fn invalid_configuration_names_the_key() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lendhub"))
        .arg("migrate")
        .env("LENDHUB_DATA_DIR", tempfile::tempdir().unwrap().path())
        .env("LENDHUB_WEBHOOKS__HTTPS_ONLY", "perhaps")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr).to_lowercase();
    assert!(stderr.contains("webhooks.https_only"), "{stderr}");
}

#[test]
fn a_database_url_requiring_tls_is_refused_not_sent_in_clear() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lendhub"))
        .arg("migrate")
        .env("LENDHUB_DATA_DIR", tempfile::tempdir().unwrap().path())
        .env(
            "LENDHUB_DATABASE_URL",
            "postgres://lendhub:secret-pw@127.0.0.1:1/lendhub?sslmode=require",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("sslmode=require"), "{stderr}");
    assert!(
        !stderr.contains("secret-pw"),
        "the password never prints: {stderr}"
    );
}

#[tokio::test]
async fn admin_commands_refuse_to_create_a_database_they_were_not_pointed_at() {
    // An empty data directory (SQLite) or an empty database (PostgreSQL):
    // what an operator meets running a command from the wrong place.
    let site = crate::support::Site::new().await;
    for args in [
        &["sandbox", "clients", "create", "--name", "x"][..],
        &["partner", "clients", "list"],
        &[
            "sso",
            "clients",
            "create",
            "--name",
            "x",
            "--redirect-uri",
            "https://a.example/cb",
        ],
        &["cms", "list"],
    ] {
        let out = lendhub().args(args).envs(site.env()).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("no lendhub database at"), "{stderr}");
        assert!(stderr.contains("--data-dir"), "{stderr}");
        assert!(stderr.contains("lendhub migrate"), "{stderr}");
        assert!(out.stdout.is_empty());
    }
    assert!(
        !site.path().join("lendhub.db").exists(),
        "nothing was created"
    );
    // Asked to, `migrate` creates it; then the same command works.
    let migrated = lendhub().arg("migrate").envs(site.env()).output().unwrap();
    assert!(migrated.status.success());
    cli(&site, &["sandbox", "clients", "list"]);
}

#[tokio::test]
async fn admin_commands_find_the_servers_database_by_flag_from_anywhere_and_name_it() {
    let site = crate::support::Site::new().await;
    let server = launch(&site);
    let elsewhere = tempfile::tempdir().unwrap();
    let mut command = lendhub();
    command
        .current_dir(elsewhere.path())
        .args(["sandbox", "clients", "create", "--name", "ops"]);
    if let Some(url) = &site.database_url {
        // Without the server's master key (kept in its data directory
        // unless configured) a command refuses rather than make a new one.
        let mut keyless = lendhub();
        keyless.current_dir(elsewhere.path()).args([
            "sandbox",
            "clients",
            "create",
            "--name",
            "ops",
            "--database-url",
            url,
        ]);
        let out = keyless.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("no master key"), "{stderr}");
        command.args(["--database-url", url]);
    }
    command.arg("--data-dir").arg(site.path());
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let named = match &site.database_url {
        Some(_) => "using the database at PostgreSQL".to_owned(),
        None => format!(
            "using the database at {}",
            site.path().join("lendhub.db").display()
        ),
    };
    assert!(stderr.contains(&named), "{stderr}");
    assert!(!elsewhere.path().join("data").exists());
    let created: Value = serde_json::from_slice(&out.stdout).unwrap();
    let http = reqwest::Client::new();
    // The running server knows the client at once.
    client_token(
        &http,
        &server.base,
        created["client_id"].as_str().unwrap(),
        created["client_secret"].as_str().unwrap(),
    )
    .await;
}

#[test]
fn every_bad_setting_exits_2_naming_its_key() {
    let short_key = "AAAAAAAAAAAAAAAAAAAAAA=="; // 16 bytes, not 32
    for (variable, value, key) in [
        (
            "LENDHUB_SECRETS__MASTER_KEY",
            "not base64!",
            "secrets.master_key",
        ),
        (
            "LENDHUB_SECRETS__MASTER_KEY",
            short_key,
            "secrets.master_key",
        ),
        ("LENDHUB_LOG__LEVEL", "verbose", "log.level"),
        ("LENDHUB_LOG__LEVEL", "lendhub=loud", "log.level"),
        ("LENDHUB_LOG", "warning", "LENDHUB_LOG"),
    ] {
        let out = lendhub()
            .arg("migrate")
            .env("LENDHUB_DATA_DIR", tempfile::tempdir().unwrap().path())
            .env(variable, value)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{variable}={value}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("lendhub: invalid configuration: ") && stderr.contains(key),
            "{variable}={value}: {stderr}"
        );
    }
}

#[test]
fn settings_read_at_start_up_exit_2_naming_their_key() {
    let dir = tempfile::tempdir().unwrap();
    let pricing = dir.path().join("pricing.json");
    std::fs::write(&pricing, "{\"not\": \"pricing\"}").unwrap();
    for (variable, value, key) in [
        (
            "LENDHUB_PUBLIC__PRICING_FILE",
            "/nonexistent/pricing.json",
            "public.pricing_file",
        ),
        (
            "LENDHUB_PUBLIC__PRICING_FILE",
            pricing.to_str().unwrap(),
            "public.pricing_file",
        ),
        ("LENDHUB_SMTP__USERNAME", "someone", "smtp.username"),
    ] {
        let out = lendhub()
            .arg("serve")
            .env("LENDHUB_DATA_DIR", dir.path())
            .env("LENDHUB_SANDBOX__ADDR", "127.0.0.1:0")
            .env("LENDHUB_HUB__ADDR", "127.0.0.1:0")
            .env("LENDHUB_SSO__ADDR", "127.0.0.1:0")
            .env("LENDHUB_OPS__ADDR", "127.0.0.1:0")
            .env("LENDHUB_STATUS__ADDR", "127.0.0.1:0")
            .env("LENDHUB_SMTP__HOST", "127.0.0.1")
            .env(variable, value)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{variable}={value}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("lendhub: invalid configuration: ") && stderr.contains(key),
            "{variable}={value}: {stderr}"
        );
    }
}

#[tokio::test]
async fn a_log_file_gets_plain_lines_and_counters_exist_before_their_first_event() {
    let site = crate::support::Site::new().await;
    let log = tempfile::NamedTempFile::new().unwrap();
    let server = launch_logging(
        &site,
        &[("LENDHUB_LOG", "info")],
        Stdio::from(log.reopen().unwrap()),
    );
    let http = reqwest::Client::new();
    let metrics = metrics_text(&http, &server.ops).await;
    for series in [
        "webhook_deliveries_total{outcome=\"delivered\"} 0",
        "webhook_deliveries_total{outcome=\"failed\"} 0",
        "enquiry_notifications_total{outcome=\"sent\"} 0",
        "enquiry_notifications_total{outcome=\"failed\"} 0",
    ] {
        assert!(metrics.contains(series), "{series} missing:\n{metrics}");
    }
    // A planned-tier path answers 503: the platform's state, not a fault.
    let planned = http
        .get(format!("{}/partner/v1/applications", server.hub))
        .send()
        .await
        .unwrap();
    assert_eq!(planned.status(), 503);
    // A graceful stop flushes the log writer's queue.
    let mut server = server;
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    assert!(server.child.wait().unwrap().success());
    let text = std::fs::read_to_string(log.path()).unwrap();
    assert!(text.contains("/partner/v1/applications"), "{text}");
    assert!(
        !text.contains('\u{1b}'),
        "no colour codes in a file:\n{text}"
    );
    assert!(
        !text.contains("ERROR"),
        "a planned-tier 503 is not an error:\n{text}"
    );
    let latency = text
        .lines()
        .find(|l| l.contains("/partner/v1/applications"))
        .and_then(|l| l.split("latency_ms=").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap();
    let decimals = latency.split('.').nth(1).map_or(0, str::len);
    assert!(decimals <= 3, "latency_ms={latency}");
}
