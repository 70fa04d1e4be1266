//! After the decision (issue #15): accepting and signing an offer locks the
//! decision (423 `decision_locked` for any change), a refresh runs the model
//! again under its 1 req/s sub-limit, and a declined company waits out its
//! cooling-off before applying again.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};
use time::Duration;

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::process::{cli, cli_refused};
use crate::support::*;

use crate::rest_tier::rest_post as post;

const SCOPES: &str =
    "applications.read applications.write decisions.read events.read identity.write";
const TEST: &str = "/sandbox/v1";

async fn test_key(app: &App) -> String {
    let (client, _) = rest_partner(app, SCOPES, Tier::Platform).await;
    api_key(app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A submitted application of `company` through `bank`: (application id,
/// decision id, application status).
async fn decided(app: &App, key: &str, company: &str, bank: &str) -> (String, String, String) {
    app.advance(Duration::seconds(1)); // the create sub-limit
    let r = post(
        app,
        &format!("{TEST}/applications"),
        key,
        json!({"business": {"company_number": company}, "amount_pence": 1_000_000, "term_months": 24,
               "applicant": {"email": "ada@example.com"}, "reference": "LC-1"}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let r = post(
        app,
        &format!("{TEST}/applications/{id}/submit"),
        key,
        json!({"consents": {"credit_search": true, "open_banking": true, "terms": true}, "bank": bank}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let decision = r.body["decision"]["id"].as_str().unwrap().to_owned();
    (id, decision, r.body["status"].as_str().unwrap().to_owned())
}

fn signature() -> Value {
    json!({"signed_by": "Ada Lovelace", "accept_terms": true})
}

async fn event_types(app: &App, key: &str) -> Vec<String> {
    let r = rest_get(app, &format!("{TEST}/events?limit=100"), Some(key)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn accepting_an_offer_signs_it_and_locks_the_decision() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (id, decision, status) = decided(&app, &key, "00000401", "test_bank_strong").await;
    assert_eq!(status, "approved");
    let accept = |body: Value| {
        let (app, key, id) = (&app, &key, &id);
        async move { post(app, &format!("{TEST}/applications/{id}/accept"), key, body).await }
    };

    let r = accept(json!({"signed_by": " ", "accept_terms": false})).await;
    assert_hub_error(&r, 422, "validation_failed");
    let reasons: Vec<(&str, &str)> = r.body["error"]["detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["field"].as_str().unwrap(), d["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("signed_by", "required"),
            ("accept_terms", "consent_required")
        ]
    );

    let r = accept(signature()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body["status"], "approved",
        "funding moves it on, not acceptance"
    );
    assert_eq!(r.body["decision"]["offer"]["is_indicative"], false);
    assert!(r.body["decision"]["accepted_at"].is_string());
    let types = event_types(&app, &key).await;
    assert_eq!(
        types[types.len() - 2..],
        ["offer.accepted", "agreement.signed"]
    );
    let events = rest_get(&app, &format!("{TEST}/events?limit=2"), Some(&key)).await;
    let signed = &events.body["data"][0]["data"]["object"];
    assert_eq!(signed["object"], "agreement");
    assert_eq!(signed["signed_by"], "Ada Lovelace");
    assert_eq!(signed["application_id"], id.as_str());
    let offer = &events.body["data"][1]["data"]["object"];
    assert_eq!(offer["object"], "offer");
    assert_eq!(offer["decision_id"], decision.as_str());
    assert_eq!(offer["amount_pence"], 1_000_000);
    assert_eq!(offer["reference"], "LC-1");

    // Locked: accepting again or refreshing is 423, and nothing changes.
    assert_hub_error(&accept(signature()).await, 423, "decision_locked");
    let refresh = refresh(&app, &key, &decision).await;
    assert_hub_error(&refresh, 423, "decision_locked");
    let after = rest_get(&app, &format!("{TEST}/decisions/{decision}"), Some(&key)).await;
    assert_eq!(after.body["offer"]["is_indicative"], false);
    let count = |types: &[String], t: &str| types.iter().filter(|x| x.as_str() == t).count();
    let now = event_types(&app, &key).await;
    assert_eq!(
        (
            count(&now, "offer.accepted"),
            count(&now, "decision.completed")
        ),
        (1, 1)
    );
}

#[tokio::test]
async fn only_a_live_approved_offer_can_be_accepted() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (referred, _, status) = decided(&app, &key, "00000401", "test_bank_thin").await;
    assert_eq!(status, "in_review");
    let r = post(
        &app,
        &format!("{TEST}/applications/{referred}/accept"),
        &key,
        signature(),
    )
    .await;
    assert_hub_error(&r, 409, "conflict");

    let (approved, _, _) = decided(&app, &key, "00000401", "test_bank_strong").await;
    app.advance(Duration::days(30)); // the offer's expires_at
    let r = post(
        &app,
        &format!("{TEST}/applications/{approved}/accept"),
        &key,
        signature(),
    )
    .await;
    assert_hub_error(&r, 409, "conflict");
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
}

#[tokio::test]
async fn a_refresh_decides_again_under_its_sub_limit() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (id, decision, _) = decided(&app, &key, "00000401", "test_bank_strong").await;
    let before = rest_get(&app, &format!("{TEST}/decisions/{decision}"), Some(&key)).await;
    app.advance(Duration::seconds(5));
    // The sub-limit is counted on the service's clock: stopped here, the
    // second refresh falls in the first one's second however slow the
    // machine (moving it on is what frees the next).
    app.clock.freeze();
    let path = format!("{TEST}/decisions/{decision}/refresh");
    let r = post(&app, &path, &key, json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["id"], decision.as_str(), "the same decision");
    assert_eq!(r.body["outcome"], "approved");
    assert_eq!(
        r.body["offer"], before.body["offer"],
        "same facts, same offer"
    );
    assert_ne!(r.body["decided_at"], before.body["decided_at"]);
    let types = event_types(&app, &key).await;
    assert_eq!(
        types
            .iter()
            .filter(|t| t.as_str() == "decision.completed")
            .count(),
        2
    );
    let application = rest_get(&app, &format!("{TEST}/applications/{id}"), Some(&key)).await;
    assert_eq!(
        application.body["decision"]["decided_at"],
        r.body["decided_at"]
    );

    // The seed's sub-limit: one refresh a second.
    let again = post(&app, &path, &key, json!({})).await;
    assert_hub_error(&again, 429, "rate_limited");
    assert!(again.headers.contains_key("retry-after"));
    assert!(again.headers.contains_key("ratelimit-limit"));

    app.advance(Duration::seconds(1));
    let r = post(
        &app,
        &format!("{TEST}/decisions/dec_01J00000000000000000000000/refresh"),
        &key,
        json!({}),
    )
    .await;
    assert_hub_error(&r, 404, "not_found");
}

#[tokio::test]
async fn a_declined_company_is_final_and_cools_off_before_applying_again() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (_, decision, status) = decided(&app, &key, "00000401", "test_bank_low").await;
    assert_eq!(status, "declined");
    app.advance(Duration::seconds(1));
    let r = post(
        &app,
        &format!("{TEST}/decisions/{decision}/refresh"),
        &key,
        json!({}),
    )
    .await;
    assert_hub_error(&r, 409, "conflict");

    let r = reapply(&app, &key).await;
    assert_hub_error(&r, 422, "validation_failed");
    let detail = &r.body["error"]["detail"][0];
    assert_eq!(detail["field"], "business.company_number");
    assert_eq!(detail["reason"], "cooling_off");
    let until = time::OffsetDateTime::parse(
        detail["bound"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();

    // Another partner's decline is not this partner's business.
    let other = test_key(&app).await;
    assert_eq!(reapply(&app, &other).await.status, 201);

    // Each attempt moves the clock a second (the create sub-limit).
    let now = lendhub_domain::clock::Clock::now(app.clock.as_ref());
    app.advance(until - now - Duration::seconds(5));
    assert_hub_error(&reapply(&app, &key).await, 422, "validation_failed");
    app.advance(Duration::seconds(4));
    let r = reapply(&app, &key).await;
    assert_eq!(r.status, 201, "{}", r.body);
}

async fn reapply(app: &App, key: &str) -> Reply {
    app.advance(Duration::seconds(1));
    post(
        app,
        &format!("{TEST}/applications"),
        key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 500_000,
               "term_months": 12, "applicant": {"email": "ada@example.com"}}),
    )
    .await
}

/// `lendhub underwriting approve` of `decision` by `underwriter` for `note`.
fn approve<'a>(decision: &'a str, underwriter: &'a str, note: &'a str) -> [&'a str; 7] {
    [
        "underwriting",
        "approve",
        decision,
        "--underwriter",
        underwriter,
        "--note",
        note,
    ]
}

/// `POST /decisions/{id}/refresh`, a second after the last (its sub-limit).
async fn refresh(app: &App, key: &str, decision: &str) -> Reply {
    app.advance(Duration::seconds(1));
    post(
        app,
        &format!("{TEST}/decisions/{decision}/refresh"),
        key,
        json!({}),
    )
    .await
}

fn lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The server's events page sees another process's commit within 100 ms.
async fn completed_count(app: &App, key: &str, want: usize) {
    propagated(
        "the CLI's decision.completed reaches the events page",
        || async {
            event_types(app, key)
                .await
                .iter()
                .filter(|t| t.as_str() == "decision.completed")
                .count()
                == want
        },
    )
    .await;
}

#[tokio::test]
async fn an_underwriter_settles_referrals_with_a_second_decision_completed() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (approved_id, approve_me, status) = decided(&app, &key, "00000401", "test_bank_thin").await;
    assert_eq!(status, "in_review");
    let (declined_id, decline_me, _) = decided(&app, &key, "00000402", "test_bank_strong").await;
    let site = &app._site;

    let queue = lines(&cli(site, &["underwriting", "queue"]));
    let queued: Vec<&str> = queue
        .iter()
        .map(|q| q["decision_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        queued,
        [approve_me.as_str(), decline_me.as_str()],
        "oldest first"
    );
    assert_eq!(
        queue[0]["reasons"],
        json!(["banking_data_insufficient", "manual_review_required"])
    );
    assert_eq!(queue[0]["partner"]["livemode"], false);

    let unattributed = cli_refused(site, &approve(&approve_me, "Grace", " "));
    assert!(unattributed.contains("why"), "{unattributed}");
    let why = "two years of filed accounts make up for the thin bank history";
    let approved = lines(&cli(site, &approve(&approve_me, "Grace Hopper", why)));
    assert_eq!(approved[0]["outcome"], "approved");
    let r = rest_get(
        &app,
        &format!("{TEST}/applications/{approved_id}"),
        Some(&key),
    )
    .await;
    assert_eq!(r.body["status"], "approved");
    assert_eq!(r.body["decision"]["outcome"], "approved");
    assert_eq!(r.body["decision"]["offer"]["amount_pence"], 1_000_000);
    assert_eq!(r.body["decision"]["offer"]["is_indicative"], true);
    let codes: Vec<&str> = r.body["decision"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["manual_review_required", "credit_ok"]);
    let again = cli_refused(site, &approve(&approve_me, "Grace", "again"));
    assert!(again.contains("refused"), "{again}");

    let unknown = cli_refused(
        site,
        &[
            "underwriting",
            "decline",
            &decline_me,
            "--underwriter",
            "Grace",
            "--reason",
            "bad_vibes",
            "--note",
            "no",
        ],
    );
    assert!(unknown.contains("affordability_low"), "{unknown}");
    cli(
        site,
        &[
            "underwriting",
            "decline",
            &decline_me,
            "--underwriter",
            "Grace Hopper",
            "--reason",
            "credit_adverse",
            "--note",
            "county court judgment found by hand",
        ],
    );
    let r = rest_get(
        &app,
        &format!("{TEST}/applications/{declined_id}"),
        Some(&key),
    )
    .await;
    assert_eq!(r.body["status"], "declined");
    assert_eq!(r.body["decision"]["reasons"][0]["code"], "credit_adverse");
    assert!(r.body["decision"]["offer"].is_null());

    // Two submissions and two settlements: four decision.completed.
    completed_count(&app, &key, 4).await;
    assert!(lines(&cli(site, &["underwriting", "queue"])).is_empty());
    let log = lines(&cli(site, &["underwriting", "log"]));
    let acts: Vec<(&str, &str, &str)> = log
        .iter()
        .map(|a| {
            (
                a["decision_id"].as_str().unwrap(),
                a["act"].as_str().unwrap(),
                a["actor"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        acts,
        [
            (approve_me.as_str(), "approve", "Grace Hopper"),
            (decline_me.as_str(), "decline", "Grace Hopper"),
        ]
    );
}

#[tokio::test]
async fn only_the_owners_logged_release_unlocks_a_signed_decision() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (id, decision, _) = decided(&app, &key, "00000401", "test_bank_strong").await;
    let r = post(
        &app,
        &format!("{TEST}/applications/{id}/accept"),
        &key,
        signature(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let site = &app._site;
    let args = [
        "underwriting",
        "release",
        &decision,
        "--owner",
        "Ada (lender owner)",
        "--reason",
        "signed with the wrong company director",
    ];

    let refused = cli_refused(site, &args);
    assert!(refused.contains("--sudo"), "{refused}");
    assert_eq!(
        rest_get(&app, &format!("{TEST}/decisions/{decision}"), Some(&key))
            .await
            .body["offer"]["is_indicative"],
        false,
        "still locked"
    );

    let mut sudo = args.to_vec();
    sudo.push("--sudo");
    let released = lines(&cli(site, &sudo));
    assert_eq!(released[0]["locked"], false);
    let d = rest_get(&app, &format!("{TEST}/decisions/{decision}"), Some(&key)).await;
    assert!(d.body["accepted_at"].is_null());
    assert_eq!(d.body["offer"]["is_indicative"], true);
    let refresh = refresh(&app, &key, &decision).await;
    assert_eq!(refresh.status, 200, "unlocked: {}", refresh.body);

    let again = cli_refused(site, &sudo);
    assert!(again.contains("not locked"), "{again}");
    let log = lines(&cli(
        site,
        &["underwriting", "log", "--decision", &decision],
    ));
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["act"], "release");
    assert_eq!(log[0]["actor"], "Ada (lender owner)");
    assert_eq!(log[0]["note"], "signed with the wrong company director");
}

#[tokio::test]
async fn the_test_environments_simulated_underwriter_settles_referrals_a_day_later() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (thin, _, status) = decided(&app, &key, "00000401", "test_bank_thin").await;
    assert_eq!(status, "in_review");
    app.advance(Duration::seconds(1));
    let check = post(
        &app,
        &format!("{TEST}/identity/checks"),
        &key,
        json!({"person": {"first_name": "Ada", "last_name": "Sanctioned", "date_of_birth": "1985-04-12"}}),
    )
    .await;
    assert_eq!(check.status, 201, "{}", check.body);
    app.advance(Duration::seconds(1));
    let r = post(
        &app,
        &format!("{TEST}/applications"),
        &key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000, "term_months": 24,
               "applicant": {"email": "ada@example.com"}}),
    )
    .await;
    let risky = r.body["id"].as_str().unwrap().to_owned();
    let r = post(
        &app,
        &format!("{TEST}/applications/{risky}/submit"),
        &key,
        json!({"consents": {"credit_search": true, "open_banking": true, "terms": true},
               "bank": "test_bank_strong", "identity_check_ids": [check.body["id"]]}),
    )
    .await;
    assert_eq!(r.body["status"], "in_review", "{}", r.body);

    let status = |id: String| {
        let (app, key) = (&app, &key);
        async move {
            rest_get(app, &format!("{TEST}/applications/{id}"), Some(key))
                .await
                .body
        }
    };
    app.advance(Duration::hours(23));
    assert_eq!(status(thin.clone()).await["status"], "in_review");
    app.advance(Duration::hours(1));
    propagated("the simulated underwriter settles both", || async {
        status(thin.clone()).await["status"] != "in_review"
            && status(risky.clone()).await["status"] != "in_review"
    })
    .await;
    let approved = status(thin.clone()).await;
    assert_eq!(approved["status"], "approved");
    assert_eq!(approved["decision"]["offer"]["is_indicative"], true);
    let declined = status(risky.clone()).await;
    assert_eq!(declined["status"], "declined");
    assert_eq!(declined["decision"]["reasons"][0]["code"], "director_risk");
    completed_count(&app, &key, 4).await;
    let log = lines(&cli(&app._site, &["underwriting", "log"]));
    assert_eq!(log.len(), 2);
    for entry in &log {
        assert_eq!(entry["actor"], "simulated underwriter (test environment)");
    }
}

/// Accepts `id`'s offer and moves the clock past the pre-funding checks.
async fn accept_and_wait_for_funds(app: &App, key: &str, id: &str) {
    let r = post(
        app,
        &format!("{TEST}/applications/{id}/accept"),
        key,
        signature(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    app.advance(Duration::minutes(4));
    let r = rest_get(app, &format!("{TEST}/applications/{id}"), Some(key)).await;
    assert_eq!(r.body["status"], "approved", "not yet due");
    app.advance(Duration::minutes(1));
}

#[tokio::test]
async fn a_signed_offer_is_paid_out_and_its_account_opens() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (id, decision, _) = decided(&app, &key, "00000401", "test_bank_strong").await;
    accept_and_wait_for_funds(&app, &key, &id).await;
    let get = || async { rest_get(&app, &format!("{TEST}/applications/{id}"), Some(&key)).await };
    propagated("the disbursement clears", || async {
        get().await.body["status"] == "funded"
    })
    .await;
    let funded = get().await.body;
    let account = funded["account_id"].as_str().unwrap();
    assert!(account.starts_with("acc_"), "{funded}");
    assert!(funded["funding_failure_reason"].is_null());

    let types = event_types(&app, &key).await;
    assert_eq!(
        types[types.len() - 5..],
        [
            "offer.accepted",
            "agreement.signed",
            "application.funded",
            "account.activated",
            "loan.funded"
        ]
    );
    let events = rest_get(&app, &format!("{TEST}/events?limit=3"), Some(&key)).await;
    let activated = &events.body["data"][1]["data"]["object"];
    assert_eq!(activated["object"], "account");
    assert_eq!(activated["id"], account);
    assert_eq!(activated["status"], "performing");
    assert_eq!(activated["principal_pence"], 1_000_000);
    assert_eq!(activated["decision_id"], decision.as_str());
    assert_eq!(activated["reference"], "LC-1");
    // The payout rail's own id for the payment (ClearBank's are GUIDs).
    let rail_id = activated["disbursement_id"].as_str().unwrap();
    assert_eq!(
        (rail_id.len(), rail_id.matches('-').count()),
        (36, 4),
        "{activated}"
    );
    assert_eq!(
        events.body["data"][2]["data"]["object"]["account_id"],
        account
    );
    // The double-entry ledger: the drawdown held pending while sent, posted
    // when the rail settled it.
    let trial = trial_balance(&app);
    assert_eq!(trial["balanced"], true, "{trial}");
    assert_eq!(
        ledger_balance(&trial, &format!("loan:{account}:principal")),
        Some(1_000_000)
    );
    assert_eq!(ledger_balance(&trial, "lender:funding"), Some(-1_000_000));

    let withdraw = post(
        &app,
        &format!("{TEST}/applications/{id}/withdraw"),
        &key,
        json!({}),
    )
    .await;
    assert_hub_error(&withdraw, 409, "conflict");
    let release = cli_refused(
        &app._site,
        &[
            "underwriting",
            "release",
            &decision,
            "--owner",
            "Ada",
            "--reason",
            "too late",
            "--sudo",
        ],
    );
    assert!(release.contains("refused"), "{release}");
}

#[tokio::test]
async fn a_rejected_disbursement_leaves_no_loan_and_the_offer_open_again() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (id, decision, status) = decided(&app, &key, "00000401", "test_bank_closed").await;
    assert_eq!(status, "approved");
    accept_and_wait_for_funds(&app, &key, &id).await;
    let get = || async { rest_get(&app, &format!("{TEST}/applications/{id}"), Some(&key)).await };
    propagated("the rejection is recorded", || async {
        get().await.body["funding_failure_reason"] == "account_closed"
    })
    .await;
    let failed = get().await.body;
    assert_eq!(failed["status"], "approved");
    assert!(failed["account_id"].is_null());
    assert!(
        failed["decision"]["accepted_at"].is_null(),
        "the lock is set aside"
    );
    assert_eq!(failed["decision"]["offer"]["is_indicative"], true);
    let types = event_types(&app, &key).await;
    assert!(
        !types
            .iter()
            .any(|t| t == "application.funded" || t == "loan.funded"),
        "{types:?}"
    );
    // The pending drawdown was voided: nothing moved.
    let trial = trial_balance(&app);
    assert_eq!(trial["total_debits_pence"], 0, "{trial}");
    assert_eq!(ledger_balance(&trial, "lender:funding").unwrap_or(0), 0);
    let again = post(
        &app,
        &format!("{TEST}/applications/{id}/accept"),
        &key,
        signature(),
    )
    .await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert!(again.body["funding_failure_reason"].is_null());
    assert_eq!(
        rest_get(&app, &format!("{TEST}/decisions/{decision}"), Some(&key))
            .await
            .body["offer"]["is_indicative"],
        false
    );
}

/// The money-losing race of issue #47: an application withdrawn after its
/// signature, inside the pre-funding wait, must not be paid out. The
/// withdrawal cancels the disbursement intent the signature committed; a
/// second application signed at the same moment is paid on the same pass
/// of the worker, which shows the pass ran.
#[tokio::test]
async fn a_withdrawal_before_the_payout_starts_cancels_it() {
    let app = rest_app().await;
    let key = test_key(&app).await;
    let (kept, _, _) = decided(&app, &key, "00000401", "test_bank_strong").await;
    let (withdrawn, _, _) = decided(&app, &key, "00000401", "test_bank_strong").await;
    for id in [&kept, &withdrawn] {
        let r = post(
            &app,
            &format!("{TEST}/applications/{id}/accept"),
            &key,
            signature(),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    app.advance(Duration::minutes(4));
    let r = post(
        &app,
        &format!("{TEST}/applications/{withdrawn}/withdraw"),
        &key,
        json!({"reason": "changed our minds"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "withdrawn");
    app.advance(Duration::minutes(1));
    let get = |id: String| {
        let (app, key) = (&app, &key);
        async move { rest_get(app, &format!("{TEST}/applications/{id}"), Some(key)).await }
    };
    propagated("the other signed loan is paid out", || async {
        get(kept.clone()).await.body["status"] == "funded"
    })
    .await;
    app.advance(Duration::minutes(10));
    let after = get(withdrawn.clone()).await.body;
    assert_eq!(after["status"], "withdrawn", "{after}");
    assert!(after["account_id"].is_null(), "{after}");
    let types = event_types(&app, &key).await;
    assert_eq!(
        types.iter().filter(|t| *t == "loan.funded").count(),
        1,
        "one loan paid out, not two: {types:?}"
    );
}

/// `lendhub ledger trial-balance --json` on `app`'s database.
fn trial_balance(app: &App) -> Value {
    serde_json::from_str(&cli(&app._site, &["ledger", "trial-balance", "--json"])).unwrap()
}

/// A ledger account's balance in a trial balance, if it is listed.
fn ledger_balance(trial: &Value, account: &str) -> Option<i64> {
    trial["accounts"]
        .as_array()?
        .iter()
        .find(|a| a["account"] == account)?["balance_pence"]
        .as_i64()
}
