use serde_json::json;

use crate::support::{App, assert_error};

#[tokio::test]
async fn missing_invalid_and_expired_tokens_are_401_with_www_authenticate() {
    let app = App::spawn().await;
    let missing =
        crate::support::reply(app.http.get(app.url("/v1/fixtures")).send().await.unwrap()).await;
    assert_error(&missing, 401, "missing_api_key");
    assert!(missing.header("www-authenticate").starts_with("Bearer"));
    let invalid = app.get("not-a-token", "/v1/fixtures").await;
    assert_error(&invalid, 401, "unauthenticated");
    assert!(invalid.header("www-authenticate").contains("invalid_token"));

    let token = app.caller().await;
    assert_eq!(app.get(&token, "/v1/fixtures").await.status, 200);
    app.advance(time::Duration::seconds(3601));
    let expired = app.get(&token, "/v1/fixtures").await;
    assert_error(&expired, 401, "token_expired");
    assert!(expired.header("www-authenticate").contains("invalid_token"));
}

#[tokio::test]
async fn scopes_are_enforced_per_operation() {
    let app = App::spawn().await;
    let reader = app.client("sandbox:read").await;
    let read = app.token_for(&reader).await;
    assert_eq!(app.get(&read, "/v1/fixtures").await.status, 200);
    assert_eq!(app.get(&read, "/v1/events").await.status, 200);
    let denied = app
        .post(
            &read,
            "/v1/applications",
            "key-12345678",
            json!({"business": {"company_number": "00000401"}, "amount_pence": 5000}),
        )
        .await;
    assert_error(&denied, 403, "insufficient_scope");
    assert!(
        denied
            .header("www-authenticate")
            .contains("insufficient_scope")
    );
    for path in [
        "/v1/payments",
        "/v1/webhook-endpoints",
        "/v1/applications/01M80315443YA5R416G7AADFJ2/accept",
        "/v1/events/01M80315443YA5R416G7AADFJ2/replay",
    ] {
        assert_error(
            &app.post(&read, path, "key-12345678", json!({})).await,
            403,
            "insufficient_scope",
        );
    }
    let writer = app.client("sandbox:write").await;
    let write = app.token_for(&writer).await;
    assert_error(
        &app.get(&write, "/v1/fixtures").await,
        403,
        "insufficient_scope",
    );
    assert_error(
        &app.get(&write, "/v1/events").await,
        403,
        "insufficient_scope",
    );
    assert_error(
        &app.get(&write, "/v1/applications/01M80315443YA5R416G7AADFJ2")
            .await,
        403,
        "insufficient_scope",
    );
}

#[tokio::test]
async fn health_openapi_and_fixtures() {
    let app = App::spawn().await;
    let health =
        crate::support::reply(app.http.get(app.url("/healthz")).send().await.unwrap()).await;
    assert_eq!(health.status, 200);
    assert_eq!(health.body, json!({"status": "ok", "database": "ok"}));
    let spec =
        crate::support::reply(app.http.get(app.url("/openapi.json")).send().await.unwrap()).await;
    assert_eq!(spec.body["openapi"], "3.1.0");
    assert_eq!(spec.body["info"]["version"], "2026-08-11.1");
    let token = app.caller().await;
    let fixtures = app.get(&token, "/v1/fixtures").await.body;
    assert_eq!(fixtures["version"], "2026-08-11.2");
    let outcome = |n: &str| {
        fixtures["companies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["company_number"] == n)
            .unwrap()["outcome"]
            .clone()
    };
    assert_eq!(outcome("00000401"), "approved");
    assert_eq!(outcome("00000402"), "referred");
    assert_eq!(outcome("00000407"), "referred");
    for n in ["00000403", "00000404", "00000405"] {
        assert_eq!(outcome(n), "declined");
    }
    assert_eq!(fixtures["bank_accounts"].as_array().unwrap().len(), 2);
    assert_eq!(
        fixtures["repayment_test_amounts"].as_array().unwrap().len(),
        4
    );
    assert_eq!(fixtures["event_types"].as_array().unwrap().len(), 9);
}

#[tokio::test]
async fn healthz_answers_503_when_the_database_does_not() {
    let app = App::spawn().await;
    crate::support::database::execute_behind_the_back(&app.config, "DROP TABLE schema_migrations")
        .await;
    let r = crate::support::reply(app.http.get(app.url("/healthz")).send().await.unwrap()).await;
    assert_error(&r, 503, "service_unavailable");
    // Liveness does not depend on the database.
    let live = crate::support::reply(app.http.get(app.url("/livez")).send().await.unwrap()).await;
    assert_eq!(live.status, 200);
}
