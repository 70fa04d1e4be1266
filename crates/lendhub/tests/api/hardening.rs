//! What a hostile probe found (issue #19), each refused now: bodies that
//! say two things (a member named twice), two Idempotency-Key headers,
//! control characters and bidirectional overrides in text, an echoed
//! X-Request-Id of any size, the identity provider's plain-text answer to
//! an over-size body, and a database file anyone on the machine could read.

use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_partner};
use crate::support::*;

async fn sandbox_raw(app: &App, token: &str, keys: &[&str], body: &str) -> Reply {
    let mut request = app
        .http
        .post(app.url("/v1/applications"))
        .bearer_auth(token)
        .header("content-type", "application/json");
    for key in keys {
        request = request.header("Idempotency-Key", *key);
    }
    reply(request.body(body.to_owned()).send().await.unwrap()).await
}

#[tokio::test]
async fn ambiguous_bodies_and_repeated_keys_are_refused_and_nothing_is_written() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let twice =
        r#"{"business":{"company_number":"00000401"},"amount_pence":500000,"amount_pence":6000}"#;
    let r = sandbox_raw(&app, &token, &["dup-member-1"], twice).await;
    assert_error(&r, 400, "invalid_json");
    assert_eq!(
        r.body["error"]["detail"][0]["field"], "amount_pence",
        "{}",
        r.body
    );
    assert_eq!(r.body["error"]["detail"][0]["reason"], "duplicate");
    let nested = r#"{"business":{"company_number":"00000401","company_number":"00000403"},"amount_pence":500000}"#;
    let r = sandbox_raw(&app, &token, &["dup-member-2"], nested).await;
    assert_eq!(
        r.body["error"]["detail"][0]["field"],
        "business.company_number"
    );

    let fine = r#"{"business":{"company_number":"00000401"},"amount_pence":500000}"#;
    let r = sandbox_raw(&app, &token, &["two-keys-1", "two-keys-2"], fine).await;
    assert_error(&r, 400, "idempotency_key_malformed");
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("one Idempotency-Key")
    );

    // Nothing was recorded under the refused requests' keys.
    let r = sandbox_raw(&app, &token, &["dup-member-1"], fine).await;
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["amount_pence"], 500_000);
}

#[tokio::test]
async fn control_characters_and_overrides_are_refused_in_every_surface() {
    let app = rest_app().await;
    let (client, _) = rest_partner(
        &app,
        "applications.write applications.read",
        lendhub_domain::partner::Tier::Platform,
    )
    .await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    for (n, reference) in [
        "ABCDEFGHIJKLMNOPQRSTUVWXY\u{0}",
        "pay \u{202e}lacipyt",
        "a\u{1b}[31m",
    ]
    .into_iter()
    .enumerate()
    {
        let r = reply(
            app.http
                .post(format!("{}/sandbox/v1/applications", app.hub))
                .bearer_auth(&key)
                .header("Idempotency-Key", format!("ctl-{n}-0000"))
                .json(
                    &json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
                              "term_months": 12, "applicant": {"email": "ada@example.com"},
                              "reference": reference}),
                )
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["detail"][0]["field"], "reference");
        assert_eq!(r.body["error"]["detail"][0]["reason"], "control_character");
    }
    // The public ring's enquiries, and the partner MCP endpoint, too.
    let r = reply(
        app.http
            .post(format!("{}/public/v1/enquiries", app.hub))
            .json(&json!({"form": "contact", "fields": {"message": "hi\u{0}"}}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.body["error"]["code"], "invalid_json", "{}", r.body);
    let mcp_partner = crate::partner::partner(&app, "mcp.read").await;
    let mcp_token = crate::partner::access_token(&app, &mcp_partner).await;
    let mcp = |body: &'static str| {
        let (app, mcp_token) = (&app, &mcp_token);
        async move {
            reply(
                app.http
                    .post(format!("{}/partner/v1/mcp", app.hub))
                    .bearer_auth(mcp_token)
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    let r = mcp(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"initialize"}"#).await;
    assert_hub_error(&r, 400, "invalid_json");
    let r = mcp(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"decisioning_explanation","arguments":{"reference":"ABCDEFGHIJKLMNOPQRSTUVWXY\u0000"}}}"#).await;
    assert_hub_error(&r, 400, "invalid_json");
    assert_eq!(
        mcp(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn only_a_plausible_request_id_is_echoed() {
    let app = rest_app().await;
    let get = |id: String| {
        let app = &app;
        async move {
            app.http
                .get(format!("{}/livez", app.hub))
                .header("X-Request-Id", id)
                .send()
                .await
                .unwrap()
        }
    };
    let r = get("trace-7f3a:42".into()).await;
    assert_eq!(r.headers()["x-request-id"], "trace-7f3a:42");
    for bad in [
        "x".repeat(16_000),
        "x".repeat(129),
        "has space".into(),
        "<script>".into(),
    ] {
        let r = get(bad.clone()).await;
        let echoed = r.headers()["x-request-id"].to_str().unwrap().to_owned();
        assert!(
            echoed.starts_with("req_"),
            "{} echoed as {echoed}",
            &bad[..bad.len().min(20)]
        );
    }
}

#[tokio::test]
async fn the_identity_provider_answers_an_over_size_body_in_its_own_forms() {
    let app = App::spawn().await;
    let big = "x=".to_owned() + &"a".repeat(70 * 1024);
    let form = |path: &str| {
        app.http
            .post(format!("{}{path}", app.sso))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(big.clone())
            .send()
    };
    let token = form("/token").await.unwrap();
    assert_eq!(token.status(), 413);
    assert!(
        token.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let body: Value = token.json().await.unwrap();
    assert_eq!(body["error"], "invalid_request", "{body}");
    let page = form("/sign-in").await.unwrap();
    assert_eq!(page.status(), 413);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(!page.text().await.unwrap().contains("Failed to buffer"));
}

#[tokio::test]
async fn the_database_file_is_the_owners_alone() {
    if std::env::var("TEST_BACKEND").is_ok_and(|b| b == "postgres") {
        return; // SQLite's file; PostgreSQL keeps its own.
    }
    use std::os::unix::fs::PermissionsExt;
    let app = App::spawn().await;
    let path = app._site.dir.path().join("lendhub.db");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{path:?} is {mode:o}");
}
