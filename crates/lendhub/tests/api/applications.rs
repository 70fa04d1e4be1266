use serde_json::{Value, json};

use crate::support::{App, assert_error};

#[tokio::test]
async fn create_returns_the_application_and_its_deterministic_decision() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let r = app.create_application(&token, "00000401", 1_000_000).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let body = &r.body;
    let id = body["id"].as_str().unwrap();
    assert_eq!(id.len(), 26);
    assert!(
        id.bytes()
            .all(|b| b.is_ascii_digit() || (b.is_ascii_uppercase() && !b"ILOU".contains(&b)))
    );
    assert_eq!(body["object"], "application");
    assert_eq!(body["status"], "approved");
    assert_eq!(body["decision"]["outcome"], "approved");
    let offer = &body["decision"]["offer"];
    assert_eq!(offer["amount_pence"], 1_000_000);
    assert_eq!(offer["term_months"], 12);
    assert_eq!(offer["is_indicative"], true);
    let monthly = offer["monthly_repayment_pence"].as_i64().unwrap();
    let total = offer["total_repayable_pence"].as_i64().unwrap();
    // 11 level instalments plus a final one that absorbs rounding.
    assert!((total - 12 * monthly).abs() < 12, "{total} vs {monthly}");
    assert!(offer["apr"].as_f64().unwrap() > 0.0);
    let codes: Vec<&str> = body["decision"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["credit_ok", "affordability_ok"]);

    let fetched = app.get(&token, &format!("/v1/applications/{id}")).await;
    assert_eq!(fetched.status, 200);
    assert_eq!(&fetched.body, body);
}

#[tokio::test]
async fn reserved_companies_give_their_fixed_outcomes() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let cases = [
        ("00000401", 1_000_000, "approved", "credit_ok"),
        ("00000402", 1_000_000, "referred", "thin_file"),
        ("00000403", 1_000_000, "declined", "credit_adverse"),
        ("00000404", 1_000_000, "declined", "affordability_low"),
        ("00000405", 1_000_000, "declined", "ineligible_entity"),
        ("00000406", 2_500_001, "declined", "amount_exceeds_limit"),
        ("00000406", 2_500_000, "approved", "credit_ok"),
    ];
    for (company, amount, outcome, first_reason) in cases {
        let r = app.create_application(&token, company, amount).await;
        assert_eq!(r.status, 201);
        assert_eq!(r.body["decision"]["outcome"], outcome, "{company}");
        assert_eq!(
            r.body["decision"]["reasons"][0]["code"], first_reason,
            "{company}"
        );
        assert_eq!(r.body["decision"]["offer"].is_null(), outcome != "approved");
    }
}

#[tokio::test]
async fn every_bound_at_inside_and_just_outside() {
    let app = App::spawn().await;
    let token = app.caller().await;
    for ok in [5_000, 5_001, 249_999_999, 250_000_000] {
        assert_eq!(
            app.create_application(&token, "00000401", ok).await.status,
            201,
            "{ok}"
        );
    }
    for (amount, reason) in [
        (4_999, "min_value"),
        (250_000_001, "max_value"),
        (0, "min_value"),
        (-5, "min_value"),
    ] {
        let r = app.create_application(&token, "00000401", amount).await;
        assert_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["detail"][0],
            json!({"field": "amount_pence", "reason": reason})
        );
    }
    for bad in [
        "0000040",
        "000004011",
        "0000040A",
        "",
        "        ",
        "0000 401",
    ] {
        let r = app.create_application(&token, bad, 5_000).await;
        assert_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["detail"][0],
            json!({"field": "business.company_number", "reason": "pattern"}),
            "{bad}"
        );
    }
    let post = |body: Value| app.write(&token, "/v1/applications", body);
    let r = post(json!({})).await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(
        r.body["error"]["detail"],
        json!([{"field": "business", "reason": "required"}, {"field": "amount_pence", "reason": "required"}])
    );
    let r = post(json!({"business": {}, "amount_pence": 5000})).await;
    assert_eq!(
        r.body["error"]["detail"],
        json!([{"field": "business.company_number", "reason": "required"}])
    );
    let r = post(json!({"business": {"company_number": "00000401"}, "amount_pence": 5000.5})).await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["detail"][0]["field"], "amount_pence");
    let r = post(json!({"business": {"company_number": 401}, "amount_pence": 5000})).await;
    assert_error(&r, 422, "validation_failed");
    assert_eq!(
        r.body["error"]["detail"][0]["field"],
        "business.company_number"
    );
}

#[tokio::test]
async fn unknown_malformed_and_foreign_ids_are_404() {
    let app = App::spawn().await;
    let alice = app.caller().await;
    let bob = app.caller().await;
    let created = app.create_application(&alice, "00000401", 5_000).await;
    let id = created.body["id"].as_str().unwrap();
    assert_eq!(
        app.get(&alice, &format!("/v1/applications/{id}"))
            .await
            .status,
        200
    );
    assert_error(
        &app.get(&bob, &format!("/v1/applications/{id}")).await,
        404,
        "not_found",
    );
    assert_error(
        &app.get(&alice, "/v1/applications/01M80315443YA5R416G7AADFJ2")
            .await,
        404,
        "not_found",
    );
    for malformed in [
        "short",
        "01M80315443YA5R416G7AADFJI",
        "01m80315443ya5r416g7aadfj2",
    ] {
        assert_error(
            &app.get(&alice, &format!("/v1/applications/{malformed}"))
                .await,
            404,
            "not_found",
        );
    }
    // Bob cannot accept Alice's application either.
    let r = app
        .post(
            &bob,
            &format!("/v1/applications/{id}/accept"),
            "bob-accept-1",
            json!({"bank_account": "bank_settle"}),
        )
        .await;
    assert_error(&r, 404, "not_found");
}

#[tokio::test]
async fn accept_follows_the_state_machine() {
    let app = App::spawn().await;
    let token = app.caller().await;
    let accept = |id: String, bank: &'static str| {
        let token = token.clone();
        let app = &app;
        async move {
            app.post(
                &token,
                &format!("/v1/applications/{id}/accept"),
                &format!("acc-{}", crate::support::uuidish()),
                json!({"bank_account": bank}),
            )
            .await
        }
    };
    let approved = app
        .create_application(&token, "00000401", 1_000_000)
        .await
        .body;
    let id = approved["id"].as_str().unwrap().to_owned();
    let failed = accept(id.clone(), "bank_fail").await;
    assert_eq!(failed.status, 200);
    assert_eq!(failed.body["status"], "funding_failed");
    assert_eq!(failed.body["funding"]["status"], "failed");
    assert_eq!(failed.body["funding"]["failure_reason"], "bank_unavailable");
    let funded = accept(id.clone(), "bank_settle").await;
    assert_eq!(funded.status, 200);
    assert_eq!(funded.body["status"], "funded");
    assert_eq!(funded.body["funding"]["status"], "settled");
    assert_eq!(
        funded.body["outstanding_pence"],
        approved["decision"]["offer"]["total_repayable_pence"]
    );
    assert_error(&accept(id.clone(), "bank_settle").await, 409, "conflict");
    for company in ["00000402", "00000403"] {
        let other = app
            .create_application(&token, company, 1_000_000)
            .await
            .body["id"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_error(&accept(other, "bank_settle").await, 409, "conflict");
    }
    let r = app
        .post(
            &token,
            &format!("/v1/applications/{id}/accept"),
            "acc-bad-value",
            json!({"bank_account": "bank_maybe"}),
        )
        .await;
    assert_error(&r, 422, "validation_failed");
    let r = app
        .post(
            &token,
            &format!("/v1/applications/{id}/accept"),
            "acc-no-value",
            json!({}),
        )
        .await;
    assert_eq!(
        r.body["error"]["detail"][0],
        json!({"field": "bank_account", "reason": "required"})
    );
}

#[tokio::test]
async fn decisions_are_the_same_across_restarts_and_fresh_databases() {
    let inputs: Vec<(String, i64)> = (0..40)
        .map(|i| {
            (
                format!("{:08}", 12_345_678 + i * 7_919),
                5_000 + i * 1_234_567,
            )
        })
        .collect();
    let mut first: Vec<Value> = Vec::new();
    let mut app = App::spawn().await;
    let token = app.caller().await;
    for (company, amount) in &inputs {
        let r = app.create_application(&token, company, *amount).await;
        assert_eq!(r.status, 201);
        first.push(without_times(&r.body["decision"]));
    }
    let outcomes: std::collections::HashSet<String> =
        first.iter().map(|d| d["outcome"].to_string()).collect();
    assert!(
        outcomes.len() >= 2,
        "the rule should spread outcomes: {outcomes:?}"
    );
    app.restart().await;
    let token = app.caller().await;
    for ((company, amount), expected) in inputs.iter().zip(&first) {
        assert_eq!(
            &without_times(
                &app.create_application(&token, company, *amount).await.body["decision"]
            ),
            expected
        );
    }
    let fresh = App::spawn().await;
    let token = fresh.caller().await;
    for ((company, amount), expected) in inputs.iter().zip(&first) {
        assert_eq!(
            &without_times(
                &fresh
                    .create_application(&token, company, *amount)
                    .await
                    .body["decision"]
            ),
            expected
        );
    }
}

fn without_times(decision: &Value) -> Value {
    let mut d = decision.clone();
    for k in ["decided_at", "expires_at", "application_id"] {
        d.as_object_mut().unwrap().remove(k);
    }
    d
}

#[tokio::test]
async fn an_offer_cannot_be_accepted_after_it_lapses() {
    let app = App::spawn().await;
    let client = app.client("sandbox:read sandbox:write").await;
    let token = app.token_for(&client).await;
    let approved = app
        .create_application(&token, "00000401", 1_000_000)
        .await
        .body;
    let id = approved["id"].as_str().unwrap();
    app.advance(time::Duration::days(31));
    // Tokens live an hour on the same clock: get a fresh one.
    let token = app.token_for(&client).await;
    let r = app
        .write(
            &token,
            &format!("/v1/applications/{id}/accept"),
            json!({"bank_account": "bank_settle"}),
        )
        .await;
    assert_error(&r, 409, "conflict");
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
}

/// `read_caches.enabled = false` (what `bench/growth.sh` measures with):
/// nothing is kept or remembered, and every read answers the record as it
/// now stands, through each change.
#[tokio::test]
async fn with_read_caches_off_every_read_answers_the_current_record() {
    let site = crate::support::Site::new().await;
    let mut config = crate::support::test_config(&site);
    config.read_caches.enabled = false;
    let app = App::spawn_with(config, site).await;
    let token = app.caller().await;
    let created = app.create_application(&token, "00000401", 1_000_000).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/applications/{id}");
    for _ in 0..2 {
        let read = app.get(&token, &path).await;
        assert_eq!(read.status, 200);
        assert_eq!(read.body, created.body);
    }
    let newest = app.events(&token, "?limit=20").await;
    assert_eq!(newest[0]["type"], "decision.completed");

    let funded = app
        .post(
            &token,
            &format!("{path}/accept"),
            "caches-off-accept",
            json!({"bank_account": "bank_settle"}),
        )
        .await;
    assert_eq!(funded.status, 200, "{}", funded.body);
    let read = app.get(&token, &path).await;
    assert_eq!(read.body["status"], "funded");
    assert_eq!(read.body, funded.body);
    let newest = app.events(&token, "?limit=20").await;
    assert_ne!(newest[0]["type"], "decision.completed");
    assert!(
        newest
            .iter()
            .any(|e| e["data"]["object"]["status"] == "funded"),
        "{newest:?}"
    );
    assert_error(
        &app.get(&token, "/v1/applications/01ARZ3NDEKTSV4RRFFQ69G5FAV")
            .await,
        404,
        "not_found",
    );
}
