//! The REST tier's applications (issue #15, first slice): create with the
//! seed's rules and the company register, retrieve, list, withdraw, expire.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::*;

use crate::rest_tier::rest_post as post;

fn key_of(created: Value) -> String {
    created["key"].as_str().unwrap().to_owned()
}

fn valid() -> Value {
    json!({
        "business": {"company_number": "00000401"},
        "amount_pence": 1_000_000,
        "term_months": 24,
        "purpose": "working_capital",
        "applicant": {"email": "founder@healthy-widgets.example", "first_name": "Ada"},
        "reference": "INV-0001",
        "metadata": {"crm_id": "42"}
    })
}

fn with(mut body: Value, path: &[&str], value: Value) -> Value {
    let mut at = &mut body;
    for p in &path[..path.len() - 1] {
        at = &mut at[*p];
    }
    at[path[path.len() - 1]] = value;
    body
}

fn detail(r: &Reply) -> Vec<(String, String)> {
    r.body["error"]["detail"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|d| {
            (
                d["field"].as_str().unwrap_or_default().to_owned(),
                d["reason"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

async fn partner_keys(app: &App, scopes: &str) -> (String, String) {
    let (client, _) = rest_partner(app, scopes, Tier::Scale).await;
    (
        key_of(api_key(app, &client, "test", None)),
        key_of(api_key(app, &client, "live", None)),
    )
}

#[tokio::test]
async fn an_application_is_created_with_every_field_and_announced() {
    let app = rest_app().await;
    let (test, live) = partner_keys(&app, "applications.read applications.write events.read").await;
    let created = post(&app, "/sandbox/v1/applications", &test, valid()).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let a = &created.body;
    let id = a["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("app_"), "{id}");
    assert_eq!(a["object"], "application");
    assert_eq!(a["status"], "created");
    assert_eq!(
        a["business"],
        json!({"company_number": "00000401", "name": "Healthy Widgets Ltd"})
    );
    assert_eq!(a["amount_pence"], 1_000_000);
    assert_eq!(a["term_months"], 24);
    assert_eq!(a["purpose"], "working_capital");
    assert_eq!(a["reference"], "INV-0001");
    assert_eq!(a["metadata"], json!({"crm_id": "42"}));
    assert_eq!(a["livemode"], false);
    assert_eq!(a["decision"], Value::Null);
    let handoff = a["handoff_url"].as_str().unwrap();
    assert!(
        handoff.starts_with(&format!("{}/apply/start/{id}.", app.hub)),
        "{handoff}"
    );
    assert!(handoff.len() > app.hub.len() + 60, "an unguessable token");
    let parse = |v: &Value| {
        time::OffsetDateTime::parse(
            v.as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
    };
    assert_eq!(
        parse(&a["expires_at"]) - parse(&a["created_at"]),
        time::Duration::days(14)
    );

    let read = rest_get(&app, &format!("/sandbox/v1/applications/{id}"), Some(&test)).await;
    assert_eq!(read.status, 200, "{}", read.body);
    assert_eq!(&read.body, a, "retrieval shows the same object");
    assert_hub_error(
        &rest_get(&app, &format!("/partner/v1/applications/{id}"), Some(&live)).await,
        404,
        "not_found",
    );
    assert_hub_error(
        &rest_get(&app, "/sandbox/v1/applications/app_nope", Some(&test)).await,
        404,
        "not_found",
    );

    let events = rest_get(
        &app,
        "/sandbox/v1/events?type=application.created",
        Some(&test),
    )
    .await;
    assert_eq!(events.body["data"][0]["data"]["object"], *a);

    // Other register entries that may borrow.
    for (number, name) in [
        ("OC000401", "Healthy Partners LLP"),
        ("SC000401", "Highland Widgets Ltd"),
        ("NI000401", "Lough Trading Ltd"),
    ] {
        let body = with(valid(), &["business", "company_number"], json!(number));
        let r = post(&app, "/partner/v1/applications", &live, body).await;
        assert_eq!(r.status, 201, "{number}: {}", r.body);
        assert_eq!(r.body["business"]["name"], name);
        assert_eq!(r.body["livemode"], true);
    }
}

#[tokio::test]
async fn every_rule_is_enforced_with_a_named_field() {
    let app = rest_app().await;
    let (test, _) = partner_keys(&app, "applications.read applications.write").await;
    // POST /applications has the seed's sub-limit of 5 a second: each
    // request here comes a second after the last.
    let refused = |body: Value| {
        let app = &app;
        let test = test.clone();
        app.advance(time::Duration::seconds(1));
        async move { post(app, "/sandbox/v1/applications", &test, body).await }
    };
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            with(valid(), &["amount_pence"], json!(99_999)),
            "amount_pence",
            "min_value",
        ),
        (
            with(valid(), &["amount_pence"], json!(25_000_001)),
            "amount_pence",
            "max_value",
        ),
        (
            with(valid(), &["term_months"], json!(2)),
            "term_months",
            "min_value",
        ),
        (
            with(valid(), &["term_months"], json!(61)),
            "term_months",
            "max_value",
        ),
        (
            with(valid(), &["purpose"], json!("holiday")),
            "purpose",
            "one_of",
        ),
        (
            with(valid(), &["business", "company_number"], json!("1234567")),
            "business.company_number",
            "pattern",
        ),
        (
            with(valid(), &["business", "company_number"], json!("00000405")),
            "business.company_number",
            "not_eligible",
        ),
        (
            with(valid(), &["business", "company_number"], json!("00000408")),
            "business.company_number",
            "not_eligible",
        ),
        (
            with(valid(), &["business", "company_number"], json!("00000409")),
            "business.company_number",
            "not_eligible",
        ),
        (
            with(valid(), &["business", "company_number"], json!("00000000")),
            "business.company_number",
            "not_found",
        ),
        (
            with(valid(), &["applicant"], json!({})),
            "applicant.email",
            "required_without_redirect_uri",
        ),
        (
            with(
                valid(),
                &["redirect_uri"],
                json!("http://partner.example/back"),
            ),
            "redirect_uri",
            "https_required",
        ),
        (
            with(
                valid(),
                &["introduction_id"],
                json!("app_01KQ000000000000000000000A"),
            ),
            "introduction_id",
            "pattern",
        ),
    ];
    for (body, field, reason) in cases {
        let r = refused(body).await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(
            detail(&r),
            vec![(field.to_owned(), reason.to_owned())],
            "{field} {reason}"
        );
    }
    let decimal = refused(with(valid(), &["amount_pence"], json!(1000.5))).await;
    assert_eq!(decimal.status, 422, "pence are integers: {}", decimal.body);
    let unknown = refused(with(valid(), &["colour"], json!("blue"))).await;
    assert_hub_error(&unknown, 400, "unknown_field");
    let many: serde_json::Map<String, Value> =
        (0..21).map(|i| (format!("k{i}"), json!("v"))).collect();
    let r = refused(with(valid(), &["metadata"], Value::Object(many))).await;
    assert_eq!(
        detail(&r),
        vec![("metadata".to_owned(), "max_pairs".to_owned())]
    );
    // An email is not needed when the journey returns to the partner.
    let redirect = with(
        with(valid(), &["applicant"], json!({})),
        &["redirect_uri"],
        json!("https://partner.example/back"),
    );
    assert_eq!(refused(redirect).await.status, 201);

    let (read_only, _) = partner_keys(&app, "applications.read").await;
    let r = post(&app, "/sandbox/v1/applications", &read_only, valid()).await;
    assert_hub_error(&r, 403, "insufficient_scope");
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("applications.write")
    );
}

#[tokio::test]
async fn applications_list_newest_first_with_filters_and_cursors() {
    let app = rest_app().await;
    let (test, _) = partner_keys(&app, "applications.read applications.write").await;
    let mut ids = Vec::new();
    for i in 0..4 {
        let reference = if i % 2 == 0 { "EVEN" } else { "ODD" };
        let body = with(valid(), &["reference"], json!(reference));
        let r = post(&app, "/sandbox/v1/applications", &test, body).await;
        ids.push(r.body["id"].as_str().unwrap().to_owned());
        app.advance(time::Duration::milliseconds(5));
    }
    let newest: Vec<String> = ids.iter().rev().cloned().collect();
    let listed = |query: String| {
        let app = &app;
        let test = test.clone();
        async move {
            let r = rest_get(
                app,
                &format!("/sandbox/v1/applications{query}"),
                Some(&test),
            )
            .await;
            assert_eq!(r.status, 200, "{query}: {}", r.body);
            r
        }
    };
    let ids_of = |r: &Reply| -> Vec<String> {
        r.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = listed(String::new()).await;
    assert_eq!(ids_of(&all), newest);
    assert_eq!(all.body["url"], "/sandbox/v1/applications");
    assert_eq!(all.body["has_more"], false);
    let first = listed("?limit=2".into()).await;
    assert_eq!(ids_of(&first), newest[..2]);
    assert_eq!(first.body["has_more"], true);
    let cursor = first.body["next_cursor"].as_str().unwrap().to_owned();
    let second = listed(format!("?limit=2&starting_after={cursor}")).await;
    assert_eq!(ids_of(&second), newest[2..]);
    let even = listed("?reference=EVEN".into()).await;
    assert_eq!(ids_of(&even), vec![ids[2].clone(), ids[0].clone()]);
    let created = rest_get(
        &app,
        &format!("/sandbox/v1/applications/{}", ids[1]),
        Some(&test),
    )
    .await;
    let after = created.body["created_at"].as_str().unwrap().to_owned();
    let later = listed(format!("?created_after={}", after.replace('+', "%2B"))).await;
    assert_eq!(ids_of(&later), newest[..2]);

    post(
        &app,
        &format!("/sandbox/v1/applications/{}/withdraw", ids[3]),
        &test,
        json!({}),
    )
    .await;
    let withdrawn = listed("?status=withdrawn".into()).await;
    assert_eq!(ids_of(&withdrawn), vec![ids[3].clone()]);

    assert_hub_error(
        &rest_get(
            &app,
            "/sandbox/v1/applications?status=pondering",
            Some(&test),
        )
        .await,
        422,
        "validation_failed",
    );
    assert_hub_error(
        &rest_get(
            &app,
            "/sandbox/v1/applications?starting_after=evt_01KQ000000000000000000000A",
            Some(&test),
        )
        .await,
        404,
        "not_found",
    );
    assert_hub_error(
        &rest_get(
            &app,
            &format!(
                "/sandbox/v1/applications?starting_after={}&ending_before={}",
                ids[0], ids[1]
            ),
            Some(&test),
        )
        .await,
        422,
        "validation_failed",
    );
}

#[tokio::test]
async fn withdraw_follows_the_seeds_table_and_open_applications_expire_on_the_clock() {
    let app = rest_app().await;
    let (test, _) = partner_keys(&app, "applications.read applications.write events.read").await;
    let id = post(&app, "/sandbox/v1/applications", &test, valid())
        .await
        .body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let withdraw = |reason: Value| {
        let app = &app;
        let test = test.clone();
        let path = format!("/sandbox/v1/applications/{id}/withdraw");
        async move { post(app, &path, &test, reason).await }
    };
    let first = withdraw(json!({"reason": "found other finance"})).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body["status"], "withdrawn");
    assert_eq!(first.body["withdrawal_reason"], "found other finance");
    assert_eq!(first.body["handoff_url"], Value::Null);
    let again = withdraw(json!({})).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.body, first.body, "withdrawn again: unchanged");
    let events = rest_get(
        &app,
        "/sandbox/v1/events?type=application.withdrawn",
        Some(&test),
    )
    .await;
    assert_eq!(
        events.body["data"].as_array().unwrap().len(),
        1,
        "one event, not two"
    );

    // Another, left open: it expires when the test clock passes 14 days.
    let open = post(&app, "/sandbox/v1/applications", &test, valid())
        .await
        .body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let advanced = post(
        &app,
        "/sandbox/v1/test_helpers/clock/advance",
        &test,
        json!({"seconds": 14 * 86_400}),
    )
    .await;
    assert_eq!(advanced.status, 200, "{}", advanced.body);
    propagated("the application expires", || async {
        rest_get(
            &app,
            &format!("/sandbox/v1/applications/{open}"),
            Some(&test),
        )
        .await
        .body["status"]
            == "expired"
    })
    .await;
    let expired = rest_get(
        &app,
        "/sandbox/v1/events?type=application.expired",
        Some(&test),
    )
    .await;
    assert_eq!(
        expired.body["data"][0]["data"]["object"]["id"],
        open.as_str()
    );
    assert_hub_error(
        &post(
            &app,
            &format!("/sandbox/v1/applications/{open}/withdraw"),
            &test,
            json!({}),
        )
        .await,
        409,
        "conflict",
    );
}

#[tokio::test]
async fn concurrent_creates_with_one_key_make_one_application() {
    let app = rest_app().await;
    // The sub-limit is counted on the service's clock: stopped, the sixth
    // call below is within the second however slow the machine.
    app.clock.freeze();
    let (test, _) = partner_keys(&app, "applications.read applications.write").await;
    let send = || {
        app.http
            .post(format!("{}/sandbox/v1/applications", app.hub))
            .bearer_auth(&test)
            .header("Idempotency-Key", "create-once-0001")
            .json(&valid())
            .send()
    };
    // Five at once: the route's sub-limit (5 a second) admits them all.
    let replies = futures_util::future::join_all((0..5).map(|_| send())).await;
    let mut created = Vec::new();
    for r in replies {
        let r = reply(r.unwrap()).await;
        match r.status.as_u16() {
            201 => created.push(r.body["id"].as_str().unwrap().to_owned()),
            409 => assert_eq!(r.body["error"]["code"], "idempotency_key_in_progress"),
            other => panic!("{other}: {}", r.body),
        }
    }
    assert!(!created.is_empty());
    created.dedup();
    assert_eq!(created.len(), 1, "every 201 is the same application");
    let listed = rest_get(&app, "/sandbox/v1/applications", Some(&test)).await;
    assert_eq!(listed.body["data"].as_array().unwrap().len(), 1);

    // A sixth within the second is over the sub-limit.
    let over = reply(send().await.unwrap()).await;
    assert_hub_error(&over, 429, "rate_limited");
    assert!(over.header("retry-after").parse::<u64>().is_ok());
    assert_eq!(over.header("ratelimit-limit"), "5");
}
