//! The operator's view: the CLI beside a running server, metrics, JSON logs
//! and a graceful stop on SIGTERM.

use serde_json::Value;

use crate::support::process::{cli, client_token, launch};

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
    let r = http
        .get(format!("{}/v1/fixtures", server.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        401,
        "revocation takes effect on the running server at once"
    );
    // The ops listener exposes Prometheus metrics for what was served.
    let metrics = http
        .get(format!("{}/metrics", server.ops))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
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
