//! White-label submission and the decision engine (issue #15): an
//! application submitted with consents, a connected test bank and identity
//! checks is decided at once; the decision reads back verbatim.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::process::cli;
use crate::support::receiver::{Receiver, stripe_verifies};
use crate::support::*;

use crate::rest_tier::rest_post as post;

const SCOPES: &str = "applications.read applications.write decisions.read identity.write events.read webhooks.manage";

pub(crate) struct Partner {
    pub client: String,
    pub test: String,
    pub live: String,
}

pub(crate) async fn partner(app: &App) -> Partner {
    let (client, _) = rest_partner(app, SCOPES, Tier::Platform).await;
    let key = |env| {
        api_key(app, &client, env, None)["key"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (test, live) = (key("test"), key("live"));
    Partner { client, test, live }
}

pub(crate) async fn apply(
    app: &App,
    prefix: &str,
    key: &str,
    company: &str,
    amount: i64,
) -> String {
    app.advance(time::Duration::seconds(1)); // the create sub-limit
    let r = post(
        app,
        &format!("{prefix}/applications"),
        key,
        json!({"business": {"company_number": company}, "amount_pence": amount, "term_months": 24,
               "applicant": {"email": "ada@example.com"}, "reference": "WL-1"}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.body["id"].as_str().unwrap().to_owned()
}

pub(crate) fn consents() -> Value {
    json!({"credit_search": true, "open_banking": true, "terms": true})
}

pub(crate) async fn submit(app: &App, prefix: &str, key: &str, id: &str, body: Value) -> Reply {
    post(
        app,
        &format!("{prefix}/applications/{id}/submit"),
        key,
        body,
    )
    .await
}

fn reason_codes(decision: &Value) -> Vec<String> {
    decision["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn an_approved_application_reads_its_decision_and_announces_each_step() {
    let app = rest_app().await;
    let p = partner(&app).await;
    let receiver = Receiver::start(&[]).await;
    let endpoint = post(
        &app,
        "/sandbox/v1/webhook_endpoints",
        &p.test,
        json!({"url": receiver.url, "enabled_events": ["application.created", "application.submitted", "identity.verified", "decision.completed"]}),
    )
    .await;
    let secret = endpoint.body["secret"].as_str().unwrap().to_owned();
    let id = apply(&app, "/sandbox/v1", &p.test, "00000401", 1_000_000).await;
    assert_hub_error(
        &rest_get(
            &app,
            &format!("/sandbox/v1/applications/{id}/decision"),
            Some(&p.test),
        )
        .await,
        404,
        "not_found",
    );
    let check = post(
        &app,
        "/sandbox/v1/identity/checks",
        &p.test,
        json!({"person": {"first_name": "Ada", "last_name": "Lovelace", "date_of_birth": "1985-04-12"},
               "application_id": id}),
    )
    .await;
    let check_id = check.body["id"].as_str().unwrap().to_owned();

    let submitted = submit(
        &app,
        "/sandbox/v1",
        &p.test,
        &id,
        json!({"consents": consents(), "bank": "test_bank_strong", "identity_check_ids": [check_id]}),
    )
    .await;
    assert_eq!(submitted.status, 200, "{}", submitted.body);
    assert_eq!(submitted.body["status"], "approved");
    assert_eq!(submitted.body["handoff_url"], Value::Null);
    let decision = submitted.body["decision"].clone();
    assert_eq!(decision["object"], "decision");
    assert_eq!(decision["outcome"], "approved");
    assert_eq!(decision["application_id"], id.as_str());
    assert_eq!(decision["reference"], "WL-1");
    assert_eq!(reason_codes(&decision), ["credit_ok", "affordability_ok"]);
    assert_eq!(
        decision["model"],
        json!({"id": "pd-scorecard", "version": "1"})
    );
    assert_eq!(decision["reasons"][0]["category"], "credit");
    assert_eq!(decision["reasons"][0]["value"], "none");
    let offer = &decision["offer"];
    assert_eq!(offer["amount_pence"], 1_000_000);
    assert_eq!(offer["term_months"], 24);
    assert_eq!(offer["is_indicative"], true);
    assert!(offer["apr"].as_f64().unwrap() > 9.0);
    assert!(offer["total_repayable_pence"].as_i64().unwrap() > 1_000_000);
    assert!(decision["expires_at"].is_string());

    let decision_id = decision["id"].as_str().unwrap();
    assert!(decision_id.starts_with("dec_"));
    let by_application = rest_get(
        &app,
        &format!("/sandbox/v1/applications/{id}/decision"),
        Some(&p.test),
    )
    .await;
    assert_eq!(by_application.body, decision, "verbatim");
    let by_id = rest_get(
        &app,
        &format!("/sandbox/v1/decisions/{decision_id}"),
        Some(&p.test),
    )
    .await;
    assert_eq!(by_id.body, decision);
    let read = rest_get(
        &app,
        &format!("/sandbox/v1/applications/{id}"),
        Some(&p.test),
    )
    .await;
    assert_eq!(read.body["decision"], decision);
    assert_eq!(read.body["decision_id"], decision_id);

    // Every step's event reaches the receiver in order, each signed.
    eventually("four deliveries", || receiver.count() == 4).await;
    let delivered = receiver.all();
    let types: Vec<String> = delivered
        .iter()
        .map(|d| {
            serde_json::from_str::<Value>(&d.body).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        types,
        [
            "application.created",
            "identity.verified",
            "application.submitted",
            "decision.completed"
        ]
    );
    assert!(delivered.iter().all(|d| stripe_verifies(&secret, d)));
    let completed: Value = serde_json::from_str(&delivered[3].body).unwrap();
    assert_eq!(completed["data"]["object"], decision);

    assert_hub_error(
        &submit(
            &app,
            "/sandbox/v1",
            &p.test,
            &id,
            json!({"consents": consents(), "bank": "test_bank_strong"}),
        )
        .await,
        409,
        "conflict",
    );
}

#[tokio::test]
async fn the_engine_declines_refers_and_approves_on_the_facts() {
    let app = rest_app().await;
    let p = partner(&app).await;
    // The company's decline comes last of its cases: its cooling-off would
    // refuse the next application.
    let mut cases = vec![
        (
            "00000401",
            "test_bank_thin",
            None,
            "in_review",
            "referred",
            vec!["banking_data_insufficient", "manual_review_required"],
        ),
        (
            "00000401",
            "test_bank_strong",
            Some("Sanctioned"),
            "in_review",
            "referred",
            vec!["director_risk", "manual_review_required"],
        ),
        (
            "00000401",
            "test_bank_low",
            None,
            "declined",
            "declined",
            vec!["affordability_low"],
        ),
        (
            "00000403",
            "test_bank_strong",
            None,
            "declined",
            "declined",
            vec!["credit_adverse"],
        ),
        (
            "00000402",
            "test_bank_strong",
            None,
            "in_review",
            "referred",
            vec!["thin_file", "manual_review_required"],
        ),
    ];
    for (company, bank, person, status, outcome, codes) in cases.drain(..) {
        let id = apply(&app, "/sandbox/v1", &p.test, company, 1_000_000).await;
        let mut checks = Vec::new();
        if let Some(last) = person {
            app.advance(time::Duration::seconds(1));
            let r = post(
                &app,
                "/sandbox/v1/identity/checks",
                &p.test,
                json!({"person": {"first_name": "Ada", "last_name": last, "date_of_birth": "1985-04-12"}, "application_id": id}),
            )
            .await;
            checks.push(r.body["id"].clone());
        }
        let r = submit(
            &app,
            "/sandbox/v1",
            &p.test,
            &id,
            json!({"consents": consents(), "bank": bank, "identity_check_ids": checks}),
        )
        .await;
        assert_eq!(r.status, 200, "{company} {bank}: {}", r.body);
        assert_eq!(r.body["status"], status, "{company} {bank}");
        assert_eq!(r.body["decision"]["outcome"], outcome, "{company} {bank}");
        assert_eq!(reason_codes(&r.body["decision"]), codes, "{company} {bank}");
        assert_eq!(
            r.body["decision"]["offer"].is_object(),
            outcome == "approved",
            "{company} {bank}"
        );
        assert_eq!(
            r.body["decision"]["model"],
            json!({"id": "pd-scorecard", "version": "1"}),
            "the credit model decided: {company} {bank}"
        );
    }
    // A policy rule bounds the model: over the bureau's limit is declined
    // before any model scores it.
    let id = apply(&app, "/sandbox/v1", &p.test, "00000406", 2_500_001).await;
    let r = submit(
        &app,
        "/sandbox/v1",
        &p.test,
        &id,
        json!({"consents": consents(), "bank": "test_bank_strong", "identity_check_ids": []}),
    )
    .await;
    assert_eq!(r.body["decision"]["outcome"], "declined", "{}", r.body);
    assert_eq!(reason_codes(&r.body["decision"]), ["amount_exceeds_limit"]);
    assert_eq!(r.body["decision"]["model"], Value::Null);
}

#[tokio::test]
async fn submission_needs_consents_a_known_bank_and_in_live_the_operators_switch() {
    let app = rest_app().await;
    let p = partner(&app).await;
    let id = apply(&app, "/sandbox/v1", &p.test, "00000401", 1_000_000).await;
    let r = submit(
        &app,
        "/sandbox/v1",
        &p.test,
        &id,
        json!({"consents": {"terms": true}, "bank": "test_bank_nowhere"}),
    )
    .await;
    assert_hub_error(&r, 422, "validation_failed");
    let detail: Vec<(String, String)> = r.body["error"]["detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["field"].as_str().unwrap().to_owned(),
                d["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        detail,
        [
            (
                "consents.credit_search".to_owned(),
                "consent_required".to_owned()
            ),
            (
                "consents.open_banking".to_owned(),
                "consent_required".to_owned()
            ),
            ("bank".to_owned(), "unknown_bank".to_owned()),
        ]
    );
    assert_hub_error(
        &submit(
            &app,
            "/sandbox/v1",
            &p.test,
            &id,
            json!({"consents": consents(), "bank": "test_bank_strong",
            "identity_check_ids": ["ver_01KQ000000000000000000000A"]}),
        )
        .await,
        404,
        "not_found",
    );

    let live_id = apply(&app, "/partner/v1", &p.live, "00000401", 1_000_000).await;
    let body = json!({"consents": consents(), "bank": "test_bank_strong"});
    assert_hub_error(
        &submit(&app, "/partner/v1", &p.live, &live_id, body.clone()).await,
        403,
        "capability_denied",
    );
    let switched = cli(
        &app._site,
        &["partner", "clients", "set-white-label", &p.client, "on"],
    );
    assert!(switched.contains("\"white_label\":true"), "{switched}");
    // Switched on, a live submission is judged, but never on a test bank:
    // those are simulations, and a live decision on their invented cash
    // flow would lend real money on nothing.
    propagated("the switch reaches the server", || async {
        submit(&app, "/partner/v1", &p.live, &live_id, body.clone())
            .await
            .status
            == 422
    })
    .await;
    let refused = submit(&app, "/partner/v1", &p.live, &live_id, body.clone()).await;
    assert_hub_error(&refused, 422, "validation_failed");
    assert_eq!(
        refused.body["error"]["detail"],
        json!([{"field": "bank", "reason": "unknown_bank"}]),
        "{}",
        refused.body
    );
    let read = rest_get(
        &app,
        &format!("/partner/v1/applications/{live_id}"),
        Some(&p.live),
    )
    .await;
    assert_eq!(read.body["status"], "created", "unchanged: {}", read.body);

    let (reader, _) = rest_partner(&app, "applications.read", Tier::Platform).await;
    let key = api_key(&app, &reader, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_hub_error(
        &rest_get(
            &app,
            "/sandbox/v1/decisions/dec_01KQ000000000000000000000A",
            Some(&key),
        )
        .await,
        403,
        "insufficient_scope",
    );
}

#[tokio::test]
async fn decisions_list_newest_first_by_outcome_and_time() {
    let app = rest_app().await;
    let p = partner(&app).await;
    let mut decided = Vec::new();
    for bank in [
        "test_bank_strong",
        "test_bank_low",
        "test_bank_strong",
        "test_bank_thin",
    ] {
        let id = apply(&app, "/sandbox/v1", &p.test, "00000401", 1_000_000).await;
        let r = submit(
            &app,
            "/sandbox/v1",
            &p.test,
            &id,
            json!({"consents": consents(), "bank": bank}),
        )
        .await;
        decided.push((
            r.body["decision"]["id"].as_str().unwrap().to_owned(),
            r.body["decision"]["outcome"].as_str().unwrap().to_owned(),
            r.body["decision"]["decided_at"]
                .as_str()
                .unwrap()
                .to_owned(),
        ));
        if bank == "test_bank_low" {
            // Past the declined company's cooling-off.
            app.advance(time::Duration::days(31));
        }
    }
    let ids = |r: &Reply| -> Vec<String> {
        r.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let newest: Vec<String> = decided.iter().rev().map(|d| d.0.clone()).collect();
    let all = rest_get(&app, "/sandbox/v1/decisions", Some(&p.test)).await;
    assert_eq!(all.status, 200, "{}", all.body);
    assert_eq!(ids(&all), newest);
    assert_eq!(all.body["url"], "/sandbox/v1/decisions");
    let approved = rest_get(
        &app,
        "/sandbox/v1/decisions?outcome=approved",
        Some(&p.test),
    )
    .await;
    assert_eq!(ids(&approved), [decided[2].0.clone(), decided[0].0.clone()]);
    let page = rest_get(&app, "/sandbox/v1/decisions?limit=3", Some(&p.test)).await;
    assert_eq!(page.body["has_more"], true);
    let cursor = page.body["next_cursor"].as_str().unwrap();
    let rest = rest_get(
        &app,
        &format!("/sandbox/v1/decisions?limit=3&starting_after={cursor}"),
        Some(&p.test),
    )
    .await;
    assert_eq!(ids(&rest), [decided[0].0.clone()]);
    let after = rest_get(
        &app,
        &format!("/sandbox/v1/decisions?decided_after={}", decided[1].2),
        Some(&p.test),
    )
    .await;
    assert_eq!(ids(&after), [decided[3].0.clone(), decided[2].0.clone()]);
    assert_hub_error(
        &rest_get(&app, "/sandbox/v1/decisions?outcome=maybe", Some(&p.test)).await,
        422,
        "validation_failed",
    );
    assert_hub_error(
        &rest_get(
            &app,
            "/sandbox/v1/decisions?starting_after=app_01KQ000000000000000000000A",
            Some(&p.test),
        )
        .await,
        404,
        "not_found",
    );
    let live = rest_get(&app, "/partner/v1/decisions", Some(&p.live)).await;
    assert_eq!(live.body["data"], json!([]), "test decisions stay in test");
}

pub(crate) fn cli_lines(app: &App, args: &[&str]) -> Vec<Value> {
    cli(&app._site, args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Issue #48 item 3: the operator's champion decides and a challenger
/// scores in shadow, stored and compared but never shown to the partner;
/// a promoted model changes new decisions (and refreshes), while an old
/// decision keeps the model, reasons and score it was made with.
#[tokio::test]
async fn a_promoted_model_decides_and_a_challenger_only_shadows() {
    let app = rest_app().await;
    let p = partner(&app).await;
    let listed = cli_lines(&app, &["models", "list"]);
    let role = |lines: &[Value], model: &str| {
        lines.iter().find(|l| l["model"] == model).unwrap()["role"].clone()
    };
    assert_eq!(role(&listed, "pd-scorecard@1"), "champion");
    assert_eq!(role(&listed, "pd-scorecard@2"), Value::Null);
    let shown = cli_lines(&app, &["models", "show", "pd-scorecard@2"]);
    assert_eq!(shown[0]["cutoffs"]["approve_below"], 0.05);
    let shadowing = cli_lines(&app, &["models", "shadow", "pd-scorecard@2"]);
    assert_eq!(
        shadowing[0],
        json!({"champion": "pd-scorecard@1", "challenger": "pd-scorecard@2"})
    );

    let decide = |company: &'static str| {
        let (app, key) = (&app, p.test.clone());
        async move {
            let id = apply(app, "/sandbox/v1", &key, company, 1_000_000).await;
            let r = submit(
                app,
                "/sandbox/v1",
                &key,
                &id,
                json!({"consents": consents(), "bank": "test_bank_strong", "identity_check_ids": []}),
            )
            .await;
            assert_eq!(r.status, 200, "{}", r.body);
            r.body["decision"].clone()
        }
    };
    let old = decide("00000401").await;
    assert_eq!(old["model"], json!({"id": "pd-scorecard", "version": "1"}));
    let referred = decide("00000402").await;
    assert_eq!(referred["outcome"], "referred");
    // The challenger scored both, for the lender only.
    let compared = cli_lines(&app, &["models", "compare"]);
    assert_eq!(compared[0]["decisions"], 2, "{}", compared[0]);
    assert_eq!(compared[0]["champion"]["approved"], 1);
    assert_eq!(compared[0]["champion"]["referred"], 1);
    assert_eq!(compared[0]["challenger"]["model"]["version"], "2");
    // The lender's operator sees the same on the operations console.
    let person = crate::support::oidc::operator(&app, crate::support::oidc::OPERATOR, true).await;
    let (ops, _) = crate::reconciliation::console_sign_in(&app, &person).await;
    let console = ops.get("/dashboard/operations").await;
    assert_eq!(console.status, 200, "{}", console.body);
    assert!(
        console.body.contains("<code id=\"challenger\">pd-scorecard@2</code>")
            && console.body.contains("<tr data-role=\"champion\"><td>champion</td><td><code>pd-scorecard@1</code></td><td class=\"num\">1</td><td class=\"num\">1</td>")
            && console.body.contains("The newest 2 decisions both scored"),
        "{}",
        console.body
    );
    let events = rest_get(&app, "/sandbox/v1/events?limit=100", Some(&p.test)).await;
    let seen = format!("{}{}{}", events.body, old, referred);
    assert!(
        !seen.contains("\"version\":\"2\"")
            && !seen.contains("shadow")
            && !seen.contains("challenger"),
        "a shadow score reached the partner: {seen}"
    );

    // Promoted: new decisions and refreshes are the new champion's; the old
    // decision reads as it was made.
    let promoted = cli_lines(&app, &["models", "promote", "pd-scorecard@2"]);
    assert_eq!(
        promoted[0],
        json!({"champion": "pd-scorecard@2", "challenger": null})
    );
    let new = decide("00000406").await;
    assert_eq!(new["model"], json!({"id": "pd-scorecard", "version": "2"}));
    let id = old["id"].as_str().unwrap();
    let again = rest_get(&app, &format!("/sandbox/v1/decisions/{id}"), Some(&p.test)).await;
    assert_eq!(again.body, old, "an old decision is what it was");
    let refreshed = post(
        &app,
        &format!(
            "/sandbox/v1/decisions/{}/refresh",
            referred["id"].as_str().unwrap()
        ),
        &p.test,
        json!({}),
    )
    .await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    assert_eq!(
        refreshed.body["model"]["version"], "2",
        "{}",
        refreshed.body
    );
    let stopped = cli_lines(&app, &["models", "shadow", "--stop"]);
    assert_eq!(stopped[0]["challenger"], Value::Null);
}
