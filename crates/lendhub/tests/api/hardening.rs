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
        lendhub_domain::partner::project::Tier::Platform,
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

/// Money is integer pence and counts are integers (issue #44, item 3): a
/// number written with a fraction or an exponent is refused by every
/// integer member, whatever its value, on both surfaces, and writes nothing.
#[tokio::test]
async fn a_number_with_a_fraction_or_an_exponent_is_not_an_integer_anywhere() {
    let app = rest_app().await;
    let scopes = "applications.read applications.write decisions.read accounts.read \
                  accounts.manage payments.read payments.write";
    let (client, _) = rest_partner(
        &app,
        scopes,
        lendhub_domain::partner::project::Tier::Platform,
    )
    .await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let account = crate::rest_accounts::fund(&app, &key).await;
    let tomorrow = (lendhub_domain::clock::Clock::now(app.clock.as_ref())
        + time::Duration::days(1))
    .date()
    .to_string();
    let hub = |path: &str, body: String| {
        let request = app
            .http
            .post(format!("{}/sandbox/v1{path}", app.hub))
            .bearer_auth(&key)
            .header("idempotency-key", uuidish())
            .header("content-type", "application/json")
            .body(body);
        async move { reply(request.send().await.unwrap()).await }
    };
    let application = |amount: &str| {
        format!(
            r#"{{"business":{{"company_number":"00000401"}},"amount_pence":{amount},"term_months":12,"applicant":{{"email":"ada@example.com"}}}}"#
        )
    };
    let cases = [
        ("/applications", application("250000.0"), "amount_pence", "integer_pence"),
        ("/applications", application("2.5e5"), "amount_pence", "integer_pence"),
        (
            "/applications",
            r#"{"business":{"company_number":"00000401"},"amount_pence":250000,"term_months":12.0,"applicant":{"email":"ada@example.com"}}"#.to_owned(),
            "term_months",
            "integer",
        ),
        (
            "/payments/links",
            format!(r#"{{"account_id":"{account}","amount_pence":100.0}}"#),
            "amount_pence",
            "integer_pence",
        ),
        (
            "/payments/links",
            format!(r#"{{"account_id":"{account}","amount_pence":1e3}}"#),
            "amount_pence",
            "integer_pence",
        ),
        (
            "/payments/schedules",
            format!(
                r#"{{"account_id":"{account}","amount_pence":1000,"cadence":"weekly","start_date":"{tomorrow}","count":2.0}}"#
            ),
            "count",
            "integer",
        ),
        (
            "/sub-accounts",
            r#"{"name":"Branch","revenue_share_bps":500.0}"#.to_owned(),
            "revenue_share_bps",
            "integer",
        ),
    ];
    for (path, body, field, reason) in cases {
        let r = hub(path, body.clone()).await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["detail"][0],
            json!({"field": field, "reason": reason}),
            "{path} {body}: {}",
            r.body
        );
    }
    let payments = crate::rest_tier::rest_get(&app, "/sandbox/v1/payments", Some(&key)).await;
    assert_eq!(payments.body["data"], json!([]), "nothing was written");

    // The sandbox reads its amounts the same way.
    let token = app.caller().await;
    for amount in ["5000.0", "5e3"] {
        let r = sandbox_raw(
            &app,
            &token,
            &[&uuidish()],
            &format!(r#"{{"business":{{"company_number":"00000401"}},"amount_pence":{amount}}}"#),
        )
        .await;
        assert_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["detail"][0],
            json!({"field": "amount_pence", "reason": "integer_pence"}),
            "{amount}: {}",
            r.body
        );
    }
}

/// A security-relevant header sent twice is refused before any route runs
/// (issue #44, item 11), on both surfaces, with the code its own check
/// gives: one reader taking the first and another the last must never
/// disagree about who is calling or what was signed.
#[tokio::test]
async fn security_headers_sent_twice_are_refused() {
    let app = rest_app().await;
    let (client, _) = rest_partner(
        &app,
        "payments.read payments.write",
        lendhub_domain::partner::project::Tier::Platform,
    )
    .await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let refund = format!(
        "{}/sandbox/v1/payments/pay_01KQ3V1Y2C8WZ3R5T6Y7X819D0/refund",
        app.hub
    );
    let base = || {
        app.http
            .post(&refund)
            .header("idempotency-key", uuidish())
            .header("content-type", "application/json")
            .body("{}")
    };
    let r = reply(
        base()
            .bearer_auth(&key)
            .header("service-request-signature", "t=1,kid=rsk_a,ed25519=AAAA")
            .header("service-request-signature", "t=2,kid=rsk_b,ed25519=BBBB")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&r, 400, "signature_invalid");
    let r = reply(
        base()
            .header("authorization", format!("Bearer {key}"))
            .header("authorization", "Bearer sk_test_someone_else")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&r, 401, "unauthenticated");
    let r = reply(
        app.http
            .post(format!("{}/sandbox/v1/payments/links", app.hub))
            .bearer_auth(&key)
            .header("idempotency-key", uuidish())
            .header("content-type", "application/json")
            .header("content-type", "text/plain")
            .body("{}")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&r, 415, "unsupported_media_type");

    // The sandbox too.
    let token = app.caller().await;
    let r = reply(
        app.http
            .get(app.url("/v1/fixtures"))
            .header("authorization", format!("Bearer {token}"))
            .header("authorization", format!("Bearer {token}"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_error(&r, 401, "unauthenticated");
}
