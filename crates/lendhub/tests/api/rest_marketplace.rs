//! The marketplace (issue #17): app listings reviewed by the lender's
//! operator, an approved app's subscription delivering the partner's events
//! signed with the app's own secret, and signals that the decision engine
//! weighs while a decision is unresolved.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};
use time::Duration;

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner, rest_post};
use crate::support::process::{cli, cli_refused};
use crate::support::receiver::{Receiver, stripe_verifies};
use crate::support::*;

const SCOPES: &str =
    "applications.read applications.write decisions.read marketplace.read marketplace.write";
const TEST: &str = "/sandbox/v1";

async fn test_key(app: &App, scopes: &str) -> String {
    let (client, _) = rest_partner(app, scopes, Tier::Platform).await;
    api_key(app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A marketplace write: each needs an Idempotency-Key.
async fn write(app: &App, key: &str, path: &str, idempotency_key: &str, body: Value) -> Reply {
    reply(
        app.http
            .post(format!("{}{TEST}{path}", app.hub))
            .bearer_auth(key)
            .header("idempotency-key", idempotency_key)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn register(app: &App, key: &str, name: &str, category: &str, url: &str) -> String {
    let r = write(
        app,
        key,
        "/marketplace/apps",
        &format!("app-{name}"),
        json!({"name": name, "category": category, "webhook_url": url,
               "redirect_uris": ["https://vendor.example/return"]}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.body["id"].as_str().unwrap().to_owned()
}

/// An application of `company`, not yet submitted.
async fn application(app: &App, key: &str, company: &str) -> String {
    app.advance(Duration::seconds(1)); // the create sub-limit
    let r = rest_post(
        app,
        &format!("{TEST}/applications"),
        key,
        json!({"business": {"company_number": company}, "amount_pence": 1_000_000, "term_months": 24,
               "applicant": {"email": "ada@example.com"}}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.body["id"].as_str().unwrap().to_owned()
}

/// Submits it through `bank`: the application as answered.
async fn submit(app: &App, key: &str, id: &str, bank: &str) -> Value {
    let r = rest_post(
        app,
        &format!("{TEST}/applications/{id}/submit"),
        key,
        json!({"consents": {"credit_search": true, "open_banking": true, "terms": true}, "bank": bank}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

async fn signal(app: &App, key: &str, n: &str, body: Value) -> Reply {
    write(
        app,
        key,
        "/marketplace/signals",
        &format!("signal-{n}"),
        body,
    )
    .await
}

fn reason_codes(decision: &Value) -> Vec<&str> {
    decision["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn apps_are_reviewed_by_the_lender_and_subscribe_with_their_own_secret() {
    let app = rest_app().await;
    let key = test_key(&app, SCOPES).await;
    let site = &app._site;

    // The rules of a listing.
    for (n, (body, field, reason)) in [
        (json!({"category": "fraud"}), "name", "required"),
        (json!({"name": "V"}), "category", "required"),
        (json!({"name": "V", "category": "lending"}), "category", "enum"),
        (
            json!({"name": "V", "category": "fraud", "redirect_uris": ["http://vendor.example/r"]}),
            "redirect_uris[0]",
            "https_required",
        ),
        (
            json!({"name": "V", "category": "fraud", "redirect_uris": ["https://v.example/r#frag"]}),
            "redirect_uris[0]",
            "fragment_not_allowed",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let r = write(&app, &key, "/marketplace/apps", &format!("bad-app-{n}"), body).await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["detail"][0]["field"], field, "{}", r.body);
        assert_eq!(r.body["error"]["detail"][0]["reason"], reason, "{}", r.body);
    }
    let unkeyed = rest_post(
        &app,
        &format!("{TEST}/marketplace/apps"),
        &key,
        json!({"name": "V", "category": "fraud"}),
    )
    .await;
    assert_hub_error(&unkeyed, 400, "idempotency_key_malformed");
    let reader = test_key(&app, "marketplace.read").await;
    let r = write(
        &app,
        &reader,
        "/marketplace/apps",
        "no-scope-app",
        json!({"name": "V", "category": "fraud"}),
    )
    .await;
    assert_hub_error(&r, 403, "insufficient_scope");

    // Registered: pending review, and nothing it may do yet.
    let hooks = Receiver::start(&[]).await;
    let scope_id = register(&app, &key, "Fraudscope", "fraud", &hooks.url).await;
    assert!(scope_id.starts_with("mkt_"), "{scope_id}");
    let listing = rest_get(
        &app,
        &format!("{TEST}/marketplace/apps/{scope_id}"),
        Some(&key),
    )
    .await;
    assert_eq!(listing.status, 200, "{}", listing.body);
    assert_eq!(listing.body["object"], "marketplace.app");
    assert_eq!(listing.body["review_state"], "pending_review");
    assert_eq!(listing.body["category"], "fraud");
    assert_eq!(listing.body["webhook_url"], hooks.url.as_str());
    let early = write(
        &app,
        &key,
        "/marketplace/subscriptions",
        "sub-early",
        json!({"app_id": scope_id, "enabled_events": ["decision.completed"]}),
    )
    .await;
    assert_hub_error(&early, 409, "marketplace_app_not_approved");
    let pending = application(&app, &key, "00000401").await;
    let early = signal(
        &app,
        &key,
        "early",
        json!({"application_id": pending, "kind": "fraud", "score": 0.5, "verdict": "pass",
               "evidence": {}, "app_id": scope_id}),
    )
    .await;
    assert_hub_error(&early, 409, "marketplace_app_not_approved");

    // The operator's queue, and a review made once.
    let books = register(
        &app,
        &key,
        "Ledgerly",
        "accounting",
        "https://ledgerly.example/h",
    )
    .await;
    let queue: Vec<Value> = cli(site, &["marketplace", "apps", "list"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let queued: Vec<&str> = queue
        .iter()
        .map(|a| a["app_id"].as_str().unwrap())
        .collect();
    assert_eq!(queued, [scope_id.as_str(), books.as_str()]);
    cli(
        site,
        &[
            "marketplace",
            "apps",
            "approve",
            &scope_id,
            "--note",
            "DPA signed",
        ],
    );
    cli(
        site,
        &[
            "marketplace",
            "apps",
            "reject",
            &books,
            "--reason",
            "no DPA",
        ],
    );
    let refused = cli_refused(
        site,
        &[
            "marketplace",
            "apps",
            "reject",
            &scope_id,
            "--reason",
            "changed mind",
        ],
    );
    assert!(refused.contains("already approved"), "{refused}");
    let listing = rest_get(
        &app,
        &format!("{TEST}/marketplace/apps/{scope_id}"),
        Some(&key),
    )
    .await;
    assert_eq!(listing.body["review_state"], "approved");
    assert_eq!(listing.body["review_note"], "DPA signed");
    let rejected = write(
        &app,
        &key,
        "/marketplace/subscriptions",
        "sub-rejected",
        json!({"app_id": books, "enabled_events": ["*"]}),
    )
    .await;
    assert_hub_error(&rejected, 409, "marketplace_app_not_approved");
    let unknown = write(
        &app,
        &key,
        "/marketplace/subscriptions",
        "sub-unknown",
        json!({"app_id": "mkt_01J00000000000000000000000", "enabled_events": ["*"]}),
    )
    .await;
    assert_hub_error(&unknown, 404, "not_found");

    // Subscribed: the partner's events reach the app, signed with its own
    // secret (verified by Stripe's library).
    let sub = write(
        &app,
        &key,
        "/marketplace/subscriptions",
        "sub-scope",
        json!({"app_id": scope_id, "enabled_events": ["application.submitted", "decision.completed"]}),
    )
    .await;
    assert_eq!(sub.status, 201, "{}", sub.body);
    assert_eq!(sub.body["object"], "marketplace.subscription");
    assert!(sub.body["id"].as_str().unwrap().starts_with("msub_"));
    assert!(
        sub.body["webhook_endpoint_id"]
            .as_str()
            .unwrap()
            .starts_with("whe_")
    );
    let secret = sub.body["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{secret}");
    submit(&app, &key, &pending, "test_bank_strong").await;
    eventually("both events reach the app", || hooks.count() == 2).await;
    let delivered = hooks.all();
    let types: Vec<String> = delivered
        .iter()
        .map(|d| {
            let body: Value = serde_json::from_str(&d.body).unwrap();
            let object = &body["data"]["object"];
            assert!(
                object["id"] == pending.as_str() || object["application_id"] == pending.as_str(),
                "{object}"
            );
            body["type"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(types, ["application.submitted", "decision.completed"]);
    for d in &delivered {
        assert!(stripe_verifies(&secret, d), "signed with the app's secret");
    }
}

#[tokio::test]
async fn signals_weigh_in_only_while_the_decision_is_unresolved() {
    let app = rest_app().await;
    let key = test_key(&app, SCOPES).await;
    let site = &app._site;

    // The rules of a signal.
    let target = application(&app, &key, "00000401").await;
    for (n, (body, field, reason)) in [
        (
            json!({"kind": "fraud", "score": 0.5, "verdict": "pass", "evidence": {}}),
            "application_id",
            "required",
        ),
        (
            json!({"application_id": target, "kind": "credit", "score": 0.5, "verdict": "pass", "evidence": {}}),
            "kind",
            "enum",
        ),
        (
            json!({"application_id": target, "kind": "fraud", "score": 1.5, "verdict": "pass", "evidence": {}}),
            "score",
            "max_value",
        ),
        (
            json!({"application_id": target, "kind": "fraud", "score": "high", "verdict": "pass", "evidence": {}}),
            "score",
            "number",
        ),
        (
            json!({"application_id": target, "kind": "fraud", "score": 0.5, "verdict": "maybe", "evidence": {}}),
            "verdict",
            "enum",
        ),
        (
            json!({"application_id": target, "kind": "fraud", "score": 0.5, "verdict": "pass", "evidence": [1]}),
            "evidence",
            "object",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let r = signal(&app, &key, &format!("bad-{n}"), body).await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["detail"][0]["field"], field, "{}", r.body);
        assert_eq!(r.body["error"]["detail"][0]["reason"], reason, "{}", r.body);
    }
    let r = signal(
        &app,
        &key,
        "unknown-app",
        json!({"application_id": "app_01J00000000000000000000000", "kind": "fraud",
               "score": 0.5, "verdict": "pass", "evidence": {}}),
    )
    .await;
    assert_hub_error(&r, 404, "not_found");

    // A high-confidence fraud marker before the decision declines.
    let fraud = json!({"application_id": target, "kind": "fraud", "score": 0.95, "verdict": "fail",
                       "evidence": {"device": "emulator", "velocity": 14}});
    let marker = signal(&app, &key, "marker", fraud.clone()).await;
    assert_eq!(marker.status, 201, "{}", marker.body);
    assert_eq!(marker.body["object"], "marketplace.signal");
    assert!(marker.body["id"].as_str().unwrap().starts_with("sig_"));
    assert_eq!(marker.body["accepted"], true);
    let again = signal(&app, &key, "marker", fraud).await;
    assert_eq!((again.status.as_u16(), &again.body), (201, &marker.body));
    let declined = submit(&app, &key, &target, "test_bank_strong").await;
    assert_eq!(declined["status"], "declined", "{declined}");
    assert_eq!(
        reason_codes(&declined["decision"]),
        ["marketplace_signal", "manual_review_required"]
    );

    // A declined company waits out its cooling-off before applying again.
    app.advance(Duration::days(31));

    // After the decision a signal is kept but has no effect.
    let clean = application(&app, &key, "00000401").await;
    let approved = submit(&app, &key, &clean, "test_bank_strong").await;
    assert_eq!(approved["status"], "approved");
    let base_apr = approved["decision"]["offer"]["apr"].as_f64().unwrap();
    assert_eq!(
        reason_codes(&approved["decision"]),
        ["credit_ok", "affordability_ok"]
    );
    let late = signal(
        &app,
        &key,
        "late",
        json!({"application_id": clean, "kind": "fraud", "score": 1.0, "verdict": "fail", "evidence": {}}),
    )
    .await;
    assert_eq!(late.status, 201, "{}", late.body);
    assert_eq!(late.body["accepted"], false);
    let decision_id = approved["decision"]["id"].as_str().unwrap();
    let still = rest_get(&app, &format!("{TEST}/decisions/{decision_id}"), Some(&key)).await;
    assert_eq!(still.body["outcome"], "approved");
    app.advance(Duration::seconds(1));
    let refreshed = rest_post(
        &app,
        &format!("{TEST}/decisions/{decision_id}/refresh"),
        &key,
        json!({}),
    )
    .await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    assert_eq!(
        refreshed.body["outcome"], "approved",
        "a late marker is not weighed"
    );

    // Soft signals move the price, within 2 points.
    let soft = application(&app, &key, "00000401").await;
    for n in 0..3 {
        let r = signal(
            &app,
            &key,
            &format!("soft-{n}"),
            json!({"application_id": soft, "kind": "identity", "score": 1.0, "verdict": "fail", "evidence": {}}),
        )
        .await;
        assert_eq!(r.body["accepted"], true, "{}", r.body);
    }
    let dearer = submit(&app, &key, &soft, "test_bank_strong").await;
    assert_eq!(dearer["status"], "approved", "{dearer}");
    assert_eq!(
        reason_codes(&dearer["decision"]),
        ["credit_ok", "affordability_ok", "marketplace_signal"]
    );
    let apr = dearer["decision"]["offer"]["apr"].as_f64().unwrap();
    assert!(apr > base_apr, "{apr} > {base_apr}");
    assert!(
        apr - base_apr < 2.5,
        "three fails move the rate by the 2-point cap: {apr} vs {base_apr}"
    );
    let cheap = application(&app, &key, "00000401").await;
    signal(
        &app,
        &key,
        "cheap",
        json!({"application_id": cheap, "kind": "open_banking", "score": 1.0, "verdict": "pass", "evidence": {}}),
    )
    .await;
    let cheaper = submit(&app, &key, &cheap, "test_bank_strong").await;
    assert!(cheaper["decision"]["offer"]["apr"].as_f64().unwrap() < base_apr);

    // A referral is unresolved: a marker that arrives while it waits
    // declines it, whoever rules.
    let referred = application(&app, &key, "00000401").await;
    let waiting = submit(&app, &key, &referred, "test_bank_thin").await;
    assert_eq!(waiting["status"], "in_review");
    let r = signal(
        &app,
        &key,
        "referral",
        json!({"application_id": referred, "kind": "fraud", "score": 0.9, "verdict": "fail", "evidence": {}}),
    )
    .await;
    assert_eq!(r.body["accepted"], true, "{}", r.body);
    let decision = waiting["decision"]["id"].as_str().unwrap();
    cli(
        site,
        &[
            "underwriting",
            "approve",
            decision,
            "--underwriter",
            "Grace",
            "--note",
            "looks fine",
        ],
    );
    let settled = rest_get(&app, &format!("{TEST}/decisions/{decision}"), Some(&key)).await;
    assert_eq!(settled.body["outcome"], "declined", "{}", settled.body);
    assert_eq!(
        reason_codes(&settled.body),
        ["marketplace_signal", "manual_review_required"]
    );
}
