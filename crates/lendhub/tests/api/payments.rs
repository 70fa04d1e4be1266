use serde_json::json;

use crate::support::{App, assert_error};

#[tokio::test]
async fn repayments_settle_fail_and_reduce_the_balance() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let funded = app.funded_application(&token).await;
    let id = funded["id"].as_str().unwrap();
    let owed = funded["outstanding_pence"].as_i64().unwrap();
    let pay = |amount: i64| {
        app.write(
            &token,
            "/v1/payments",
            json!({"application_id": id, "amount_pence": amount}),
        )
    };

    let r = pay(10_000).await;
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.body["object"], "payment");
    assert_eq!(r.body["status"], "settled");
    assert_eq!(r.body["application_id"], id);
    assert!(r.body["failure_reason"].is_null());
    assert_eq!(
        app.get(&token, &format!("/v1/applications/{id}"))
            .await
            .body["outstanding_pence"],
        owed - 10_000
    );

    for (amount, reason) in [
        (4001, "insufficient_funds"),
        (4002, "payer_cancelled"),
        (4003, "mandate_revoked"),
        (4004, "bank_unavailable"),
    ] {
        let r = pay(amount).await;
        assert_eq!(r.status, 201);
        assert_eq!(r.body["status"], "failed");
        assert_eq!(r.body["failure_reason"], reason);
    }
    assert_eq!(
        app.get(&token, &format!("/v1/applications/{id}"))
            .await
            .body["outstanding_pence"],
        owed - 10_000
    );

    assert_error(&pay(owed).await, 409, "conflict");
    let rest = pay(owed - 10_000).await;
    assert_eq!(rest.status, 201);
    let repaid = app
        .get(&token, &format!("/v1/applications/{id}"))
        .await
        .body;
    assert_eq!(repaid["status"], "repaid");
    assert_eq!(repaid["outstanding_pence"], 0);
    assert_error(&pay(1).await, 409, "conflict");
    assert_eq!(app.events(&token, "?type=account.closed").await.len(), 1);
}

#[tokio::test]
async fn repayment_validation_and_ownership() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let other = app.caller().await;
    let approved = app.create_application(&token, "00000401", 5_000).await.body;
    let id = approved["id"].as_str().unwrap();
    assert_error(
        &app.write(
            &token,
            "/v1/payments",
            json!({"application_id": id, "amount_pence": 100}),
        )
        .await,
        409,
        "conflict",
    );
    let r = app.write(&token, "/v1/payments", json!({})).await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(
        r.body["error"]["detail"],
        json!([{"field": "application_id", "reason": "required"}, {"field": "amount_pence", "reason": "required"}])
    );
    let r = app
        .write(
            &token,
            "/v1/payments",
            json!({"application_id": "nope", "amount_pence": 0}),
        )
        .await;
    assert_eq!(
        r.body["error"]["detail"],
        json!([{"field": "application_id", "reason": "pattern"}, {"field": "amount_pence", "reason": "min_value"}])
    );
    assert_error(
        &app.write(
            &other,
            "/v1/payments",
            json!({"application_id": id, "amount_pence": 100}),
        )
        .await,
        404,
        "not_found",
    );
}
