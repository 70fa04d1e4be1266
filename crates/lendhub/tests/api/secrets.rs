//! Secrets never leak (issue #19): a session of every surface with debug
//! logging on — the sandbox's client credentials, token and webhook secret;
//! a partner's client secret, API key, access token and webhook secret; an
//! identity-provider user's password — and then not one of them appears in
//! plaintext in the server's log, its metrics, or the database file.

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::process::{cli, cli_input, client_token, credential, launch_logging};

#[tokio::test]
async fn no_secret_appears_in_the_log_the_metrics_or_the_database() {
    let site = crate::support::Site::new().await;
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut server = launch_logging(
        &site,
        &[
            ("LENDHUB_LOG", "debug"),
            ("LENDHUB_REST_TIER__ENABLED", "true"),
        ],
        Stdio::from(log.reopen().unwrap()),
    );
    let http = reqwest::Client::new();
    let mut secrets: Vec<(&str, String)> = Vec::new();

    // The sandbox: client credentials, a token, a webhook secret.
    let (id, secret) = (
        credential(&server.stdout, "client_id"),
        credential(&server.stdout, "client_secret"),
    );
    let token = client_token(&http, &server.base, &id, &secret).await;
    let endpoint: Value = http
        .post(format!("{}/v1/webhook-endpoints", server.base))
        .bearer_auth(&token)
        .header("Idempotency-Key", "secrets-endpoint-1")
        .json(&json!({"url": "https://hooks.example/a", "enabled_events": ["application.created"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    secrets.push(("sandbox client secret", secret));
    secrets.push(("sandbox access token", token.clone()));
    secrets.push((
        "sandbox webhook secret",
        endpoint["secret"].as_str().unwrap().to_owned(),
    ));
    let r = http
        .post(format!("{}/v1/applications", server.base))
        .bearer_auth(&token)
        .header("Idempotency-Key", "secrets-application-1")
        .json(&json!({"business": {"company_number": "00000401"}, "amount_pence": 500_000}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);

    // A partner: its client secret, an API key, an access token, a webhook
    // secret on the REST tier.
    let created: Value = serde_json::from_str(&cli(
        &site,
        &[
            "partner",
            "clients",
            "create",
            "--name",
            "acme",
            "--scopes",
            "webhooks.manage events.read mcp.read",
            "--tier",
            "platform",
        ],
    ))
    .unwrap();
    let client_id = created["client_id"].as_str().unwrap().to_owned();
    let client_secret = created["client_secret"].as_str().unwrap().to_owned();
    let key: Value = serde_json::from_str(&cli(
        &site,
        &[
            "partner",
            "api-keys",
            "create",
            "--client-id",
            &client_id,
            "--environment",
            "test",
        ],
    ))
    .unwrap();
    let api_key = key["key"].as_str().unwrap().to_owned();
    // The hub learns of a client made by the CLI when its directory syncs.
    let mut issued = Value::Null;
    for _ in 0..100 {
        issued = http
            .post(format!("{}/partner/v1/oauth/token", server.hub))
            .basic_auth(&client_id, Some(&client_secret))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if issued["access_token"].is_string() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let partner_token = issued["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("{issued}"))
        .to_owned();
    let mcp = http
        .post(format!("{}/partner/v1/mcp", server.hub))
        .bearer_auth(&partner_token)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(mcp.status(), 200);
    let hub_endpoint: Value = http
        .post(format!("{}/sandbox/v1/webhook_endpoints", server.hub))
        .bearer_auth(&api_key)
        .json(&json!({"url": "https://hooks.example/b", "enabled_events": ["*"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    secrets.push(("partner client secret", client_secret));
    secrets.push(("partner API key", api_key));
    secrets.push(("partner access token", partner_token));
    secrets.push((
        "hub webhook secret",
        hub_endpoint["secret"].as_str().unwrap().to_owned(),
    ));

    // A person of the identity provider.
    let password = "a long enough password for leaks";
    cli_input(
        &site,
        &[],
        &[
            "sso",
            "users",
            "create",
            "--email",
            "leak@example.com",
            "--given-name",
            "Ada",
            "--family-name",
            "Lovelace",
            "--company-number",
            "07654321",
            "--company-name",
            "Engines Ltd",
            "--company-role",
            "director",
            "--email-verified",
        ],
        &format!("{password}\n"),
    );
    secrets.push(("user password", password.to_owned()));

    let metrics = http
        .get(format!("{}/metrics", server.ops))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // A graceful stop flushes the log.
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    assert!(server.child.wait().unwrap().success());
    let logged = std::fs::read_to_string(log.path()).unwrap();
    assert!(
        logged.contains("DEBUG") || logged.contains("debug"),
        "debug logging was on"
    );
    let mut stored = Vec::new();
    if site.database_url.is_none() {
        for file in ["lendhub.db", "lendhub.db-wal"] {
            if let Ok(bytes) = std::fs::read(site.dir.path().join(file)) {
                stored.extend(bytes);
            }
        }
        assert!(!stored.is_empty());
    }
    let stored = String::from_utf8_lossy(&stored);
    for (what, secret) in &secrets {
        assert!(secret.len() >= 16, "{what} is a real secret");
        assert!(!logged.contains(secret.as_str()), "{what} is in the log");
        assert!(
            !metrics.contains(secret.as_str()),
            "{what} is in the metrics"
        );
        assert!(
            !stored.contains(secret.as_str()),
            "{what} is in the database file"
        );
    }
}
