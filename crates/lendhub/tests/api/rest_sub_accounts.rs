//! Sub-accounts (beta; issue #17, first slice): a partner's distribution
//! partners, named in an application's `introduction_id`; the loan keeps
//! the attribution and the partner lists accounts by it.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_accounts::fund_as;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::*;

const SCOPES: &str =
    "applications.read applications.write decisions.read accounts.read accounts.manage";
const TEST: &str = "/sandbox/v1";

async fn create(app: &App, key: &str, idempotency_key: &str, body: Value) -> Reply {
    reply(
        app.http
            .post(format!("{}{TEST}/sub-accounts", app.hub))
            .bearer_auth(key)
            .header("idempotency-key", idempotency_key)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn partner_key(app: &App, scopes: &str) -> String {
    let (client, _) = rest_partner(app, scopes, Tier::Platform).await;
    api_key(app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn sub_accounts_are_created_listed_and_attribute_the_loans_they_introduce() {
    let app = rest_app().await;
    let key = partner_key(&app, SCOPES).await;

    // The rules.
    for (n, (body, field, reason)) in [
        (json!({}), "name", "required"),
        (json!({"name": "  "}), "name", "required"),
        (json!({"name": "x".repeat(201)}), "name", "max_length"),
        (
            json!({"name": "B", "revenue_share_bps": -1}),
            "revenue_share_bps",
            "min_value",
        ),
        (
            json!({"name": "B", "revenue_share_bps": 1001}),
            "revenue_share_bps",
            "max_value",
        ),
        (
            json!({"name": "B", "revenue_share_bps": 2.5}),
            "revenue_share_bps",
            "integer",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let r = create(&app, &key, &format!("bad-sub-{n}"), body).await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["detail"][0]["field"], field, "{}", r.body);
        assert_eq!(r.body["error"]["detail"][0]["reason"], reason, "{}", r.body);
    }
    let missing_key = reply(
        app.http
            .post(format!("{}{TEST}/sub-accounts", app.hub))
            .bearer_auth(&key)
            .json(&json!({"name": "Northern Brokers Ltd"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&missing_key, 400, "idempotency_key_malformed");
    let reader = partner_key(&app, "accounts.read").await;
    let r = create(&app, &reader, "no-scope-1", json!({"name": "B"})).await;
    assert_hub_error(&r, 403, "insufficient_scope");

    // Created: the master rate unless told; the same key answers the same.
    let north = create(
        &app,
        &key,
        "sub-north",
        json!({"name": "Northern Brokers Ltd"}),
    )
    .await;
    assert_eq!(north.status, 201, "{}", north.body);
    let n = &north.body;
    let north_id = n["id"].as_str().unwrap().to_owned();
    assert!(north_id.starts_with("sub_"), "{north_id}");
    assert_eq!(n["object"], "sub_account");
    assert_eq!(n["name"], "Northern Brokers Ltd");
    assert_eq!(n["revenue_share_bps"], 1000);
    assert_eq!(n["livemode"], false);
    let again = create(
        &app,
        &key,
        "sub-north",
        json!({"name": "Northern Brokers Ltd"}),
    )
    .await;
    assert_eq!((again.status.as_u16(), &again.body), (201, &north.body));
    let south = create(
        &app,
        &key,
        "sub-south",
        json!({"name": "Southern Finance", "revenue_share_bps": 500}),
    )
    .await;
    let south_id = south.body["id"].as_str().unwrap().to_owned();
    assert_eq!(south.body["revenue_share_bps"], 500);

    let got = rest_get(&app, &format!("{TEST}/sub-accounts/{north_id}"), Some(&key)).await;
    assert_eq!((got.status.as_u16(), &got.body), (200, &north.body));
    let listed = rest_get(&app, &format!("{TEST}/sub-accounts?limit=1"), Some(&key)).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(
        listed.body["data"][0]["id"],
        south_id.as_str(),
        "newest first"
    );
    assert_eq!(listed.body["has_more"], true);
    let rest = rest_get(
        &app,
        &format!("{TEST}/sub-accounts?starting_after={south_id}"),
        Some(&key),
    )
    .await;
    assert_eq!(rest.body["data"][0]["id"], north_id.as_str());
    // Another partner's, or the live environment's, see nothing of them.
    let other = partner_key(&app, SCOPES).await;
    let r = rest_get(
        &app,
        &format!("{TEST}/sub-accounts/{north_id}"),
        Some(&other),
    )
    .await;
    assert_hub_error(&r, 404, "not_found");
    let r = rest_get(&app, &format!("{TEST}/sub-accounts"), Some(&other)).await;
    assert_eq!(r.body["data"], json!([]));

    // An application names one in introduction_id; an unknown one, or
    // another partner's, is refused.
    for (n, bad) in [
        "sub_01KQ3V1Y2C8WZ3R5T6Y7V8W9X0".to_owned(),
        north_id.clone(),
    ]
    .into_iter()
    .enumerate()
    {
        app.advance(time::Duration::seconds(1));
        let caller = if n == 0 { &key } else { &other };
        let r = crate::rest_tier::rest_post(
            &app,
            &format!("{TEST}/applications"),
            caller,
            json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
                   "term_months": 12, "applicant": {"email": "ada@example.com"},
                   "introduction_id": bad}),
        )
        .await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["detail"][0]["field"], "introduction_id");
        assert_eq!(
            r.body["error"]["detail"][0]["reason"],
            "unknown_sub_account"
        );
    }

    // Funded: the account keeps the attribution, and lists by it.
    let introduced = fund_as(&app, &key, 12, Some(&north_id)).await;
    let direct = fund_as(&app, &key, 12, None).await;
    let a = rest_get(&app, &format!("{TEST}/accounts/{introduced}"), Some(&key)).await;
    assert_eq!(a.body["sub_account_id"], north_id.as_str(), "{}", a.body);
    let a = rest_get(&app, &format!("{TEST}/accounts/{direct}"), Some(&key)).await;
    assert!(a.body["sub_account_id"].is_null());
    let ids = |body: &Value| -> Vec<String> {
        body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let by_north = rest_get(
        &app,
        &format!("{TEST}/accounts?sub_account_id={north_id}"),
        Some(&key),
    )
    .await;
    assert_eq!(by_north.status, 200, "{}", by_north.body);
    assert_eq!(ids(&by_north.body), vec![introduced.clone()]);
    let by_south = rest_get(
        &app,
        &format!("{TEST}/accounts?sub_account_id={south_id}&status=performing"),
        Some(&key),
    )
    .await;
    assert_eq!(by_south.body["data"], json!([]));
    let all = rest_get(&app, &format!("{TEST}/accounts"), Some(&key)).await;
    assert_eq!(ids(&all.body), vec![direct, introduced.clone()]);
    let r = rest_get(
        &app,
        &format!("{TEST}/accounts?sub_account_id=acc_1"),
        Some(&key),
    )
    .await;
    assert_hub_error(&r, 422, "validation_failed");

    // Each introduced application is an introduction, at its stage.
    app.advance(time::Duration::seconds(1));
    let started = crate::rest_tier::rest_post(
        &app,
        &format!("{TEST}/applications"),
        &key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 500_000,
               "term_months": 12, "applicant": {"email": "ada@example.com"},
               "introduction_id": south_id}),
    )
    .await;
    assert_eq!(started.status, 201, "{}", started.body);
    let intros = rest_get(&app, &format!("{TEST}/introductions"), Some(&key)).await;
    assert_eq!(intros.status, 200, "{}", intros.body);
    let data = intros.body["data"].as_array().unwrap().clone();
    assert_eq!(data.len(), 2, "{}", intros.body);
    let (newest, funded) = (&data[0], &data[1]);
    assert!(newest["id"].as_str().unwrap().starts_with("intro_"));
    assert_eq!(newest["object"], "introduction");
    assert_eq!(newest["sub_account_id"], south_id.as_str());
    assert_eq!(newest["application_id"], started.body["id"]);
    assert_eq!(newest["stage"], "started");
    assert!(newest["account_id"].is_null());
    assert_eq!(funded["sub_account_id"], north_id.as_str());
    assert_eq!(funded["stage"], "funded");
    assert_eq!(funded["account_id"], introduced.as_str());
    let north_only = rest_get(
        &app,
        &format!("{TEST}/introductions?sub_account_id={north_id}"),
        Some(&key),
    )
    .await;
    assert_eq!(north_only.body["data"].as_array().unwrap().len(), 1);
    assert_eq!(north_only.body["data"][0]["stage"], "funded");
    let none = rest_get(&app, &format!("{TEST}/introductions"), Some(&other)).await;
    assert_eq!(none.body["data"], json!([]));
    // Decided: decisioned (the stage is read from the application).
    let id = started.body["id"].as_str().unwrap();
    let r = crate::rest_tier::rest_post(
        &app,
        &format!("{TEST}/applications/{id}/submit"),
        &key,
        json!({"consents": {"credit_search": true, "open_banking": true, "terms": true},
               "bank": "test_bank_strong"}),
    )
    .await;
    assert_eq!(r.body["status"], "approved", "{}", r.body);
    let intros = rest_get(&app, &format!("{TEST}/introductions?limit=1"), Some(&key)).await;
    assert_eq!(intros.body["data"][0]["stage"], "decisioned");

    // Ids, cursors, scopes and environments that name nothing of yours.
    for path in [
        "/sub-accounts/sub_1".to_owned(),
        format!(
            "/sub-accounts?starting_after={}",
            started.body["id"].as_str().unwrap()
        ),
        "/sub-accounts?starting_after=sub_01KQ3V1Y2C8WZ3R5T6Y7V8W9X0".to_owned(),
        format!("/introductions?starting_after={south_id}"),
    ] {
        let r = rest_get(&app, &format!("{TEST}{path}"), Some(&key)).await;
        assert_hub_error(&r, 404, "not_found");
    }
    let r = rest_get(
        &app,
        &format!("{TEST}/introductions?sub_account_id=acc_1"),
        Some(&key),
    )
    .await;
    assert_hub_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["detail"][0]["reason"], "pattern");
    let narrow = partner_key(&app, "payments.read").await;
    for path in ["/sub-accounts", "/introductions"] {
        let r = rest_get(&app, &format!("{TEST}{path}"), Some(&narrow)).await;
        assert_hub_error(&r, 403, "insufficient_scope");
    }
    let (client, _) = rest_partner(&app, SCOPES, Tier::Platform).await;
    let live = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = rest_get(
        &app,
        &format!("/partner/v1/sub-accounts/{north_id}"),
        Some(&live),
    )
    .await;
    assert_hub_error(&r, 404, "not_found");
}
