use serde_json::json;

use crate::support::{App, assert_error, reply};

#[tokio::test]
async fn same_key_same_request_replays_exactly() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let body = json!({"business": {"company_number": "00000401"}, "amount_pence": 5000});
    let first = app
        .post(&token, "/v1/applications", "replay-key-1", body.clone())
        .await;
    assert_eq!(first.status, 201);
    assert!(first.headers.get("idempotent-replayed").is_none());
    let second = app
        .post(&token, "/v1/applications", "replay-key-1", body)
        .await;
    assert_eq!(second.status, 201);
    assert_eq!(second.headers["idempotent-replayed"], "true");
    assert_eq!(second.body, first.body);
    let created = app.events(&token, "?type=application.created").await;
    assert_eq!(created.len(), 1);
}

#[tokio::test]
async fn same_key_different_request_is_409_and_keys_are_per_client() {
    let app = App::spawn().await;
    let alice = app.caller().await;
    let bob = app.caller().await;
    let body = json!({"business": {"company_number": "00000401"}, "amount_pence": 5000});
    assert_eq!(
        app.post(&alice, "/v1/applications", "shared-key-1", body.clone())
            .await
            .status,
        201
    );
    let other = json!({"business": {"company_number": "00000401"}, "amount_pence": 5001});
    assert_error(
        &app.post(&alice, "/v1/applications", "shared-key-1", other)
            .await,
        409,
        "idempotency_key_reused",
    );
    // A used key answers for itself before the body is judged: a body the
    // operation would refuse is still a different request under that key.
    let invalid = json!({"business": {"company_number": "00000401"}, "amount_pence": 1});
    assert_error(
        &app.post(&alice, "/v1/applications", "shared-key-1", invalid)
            .await,
        409,
        "idempotency_key_reused",
    );
    // The same key on another path is a different request too.
    let payment = json!({"application_id": "01M80315443YA5R416G7AADFJ2", "amount_pence": 100});
    assert_error(
        &app.post(&alice, "/v1/payments", "shared-key-1", payment)
            .await,
        409,
        "idempotency_key_reused",
    );
    // Another client's key space is its own.
    let r = app
        .post(&bob, "/v1/applications", "shared-key-1", body)
        .await;
    assert_eq!(r.status, 201);
    assert!(r.headers.get("idempotent-replayed").is_none());
}

#[tokio::test]
async fn missing_and_malformed_keys_are_400() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let body = json!({"business": {"company_number": "00000401"}, "amount_pence": 5000});
    let none = reply(
        app.http
            .post(app.url("/v1/applications"))
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_error(&none, 400, "idempotency_key_malformed");
    for bad in [
        "1234567".to_owned(),
        "k".repeat(129),
        "has space".to_owned(),
    ] {
        assert_error(
            &app.post(&token, "/v1/applications", &bad, body.clone())
                .await,
            400,
            "idempotency_key_malformed",
        );
    }
    for good in ["12345678".to_owned(), "k".repeat(128)] {
        assert_eq!(
            app.post(&token, "/v1/applications", &good, body.clone())
                .await
                .status,
            201
        );
    }
}

#[tokio::test]
async fn a_rejected_request_can_be_corrected_under_the_same_key() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let bad = json!({"business": {"company_number": "00000401"}, "amount_pence": 1});
    assert_error(
        &app.post(&token, "/v1/applications", "fix-me-key", bad)
            .await,
        422,
        "validation_failed",
    );
    let good = json!({"business": {"company_number": "00000401"}, "amount_pence": 5000});
    assert_eq!(
        app.post(&token, "/v1/applications", "fix-me-key", good)
            .await
            .status,
        201
    );
}

#[tokio::test]
async fn fifty_concurrent_identical_requests_create_exactly_one_application() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let body = json!({"business": {"company_number": "00000401"}, "amount_pence": 123_456});
    let requests =
        (0..50).map(|_| app.post(&token, "/v1/applications", "concurrent-key-1", body.clone()));
    let replies = futures_util::future::join_all(requests).await;
    let mut ids = std::collections::HashSet::new();
    for r in &replies {
        match r.status.as_u16() {
            201 => {
                ids.insert(r.body["id"].as_str().unwrap().to_owned());
            }
            409 => assert_eq!(r.body["error"]["code"], "idempotency_key_in_progress"),
            other => panic!("unexpected {other}: {}", r.body),
        }
    }
    assert_eq!(ids.len(), 1, "every 201 names the same application");
    assert_eq!(
        app.events(&token, "?type=application.created").await.len(),
        1
    );
}
