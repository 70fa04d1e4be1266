//! The credit model's weekly monitoring (issue #48 item 5) through
//! `lendhub models monitor` against a running server: a week of decisions
//! far from the training population drifts; the partners whose decisions
//! the model scored get `model.drift_detected` with their own figures, the
//! lender's operators an e-mail through a real SMTP server, and the
//! operations console shows the week. A week monitored again raises no
//! second alert.

use std::process::Command;

use serde_json::{Value, json};

use crate::rest_decisions::{apply, consents, partner, submit};
use crate::rest_tier::{rest_get, rest_post};
use crate::support::*;

const TEST: &str = "/sandbox/v1";

/// `lendhub models monitor --week day`: its report. The command waits for
/// the server, which runs on this test's runtime: it is run off it.
async fn monitor(app: &App, day: &str) -> Value {
    let env = app._site.env();
    let day = day.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_lendhub"))
            .args(["models", "monitor", "--week", &day, "--wait-secs", "60"])
            .envs(env)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A test-environment decision of `company` for the partner holding `key`.
async fn decide(app: &App, key: &str, company: &str) -> Value {
    let id = apply(app, TEST, key, company, 1_000_000).await;
    let r = submit(
        app,
        TEST,
        key,
        &id,
        json!({"consents": consents(), "bank": "test_bank_strong", "identity_check_ids": []}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["decision"].clone()
}

async fn drift_events(app: &App, prefix: &str, key: &str) -> Vec<Value> {
    let listed = rest_get(
        app,
        &format!("{prefix}/events?type=model.drift_detected&limit=100"),
        Some(key),
    )
    .await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    listed.body["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_drifted_week_tells_the_partners_and_mails_the_operators_once() {
    let site = Site::new().await;
    let smtp = crate::support::smtp::SmtpServer::start(site.path().join("maildir"));
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    config.smtp.host = Some("127.0.0.1".into());
    config.smtp.port = smtp.port;
    config.smtp.from = "lendhub <no-reply@lendhub.test>".into();
    config.model_monitoring.min_decisions = 6;
    let app = App::spawn_with(config, site).await;
    let (a, b) = (partner(&app).await, partner(&app).await);
    // A partner may subscribe to the event.
    let endpoint = rest_post(
        &app,
        &format!("{TEST}/webhook_endpoints"),
        &a.test,
        json!({"url": "https://hooks.example/drift", "enabled_events": ["model.drift_detected"]}),
    )
    .await;
    assert_eq!(endpoint.status, 201, "{}", endpoint.body);

    // Partner a sends the same company six times (the engine approves
    // it, and refers its sister once); b one: a population of two
    // companies, nothing like the thousands training saw.
    let first = decide(&app, &a.test, "00000401").await;
    assert_eq!(first["outcome"], "approved", "{first}");
    for _ in 0..4 {
        decide(&app, &a.test, "00000401").await;
    }
    let referred = decide(&app, &a.test, "00000402").await;
    assert_eq!(referred["outcome"], "referred");
    decide(&app, &b.test, "00000401").await;
    let day = &first["decided_at"].as_str().unwrap()[..10];

    let report = monitor(&app, day).await;
    assert_eq!(report["min_decisions"], 6);
    let week = report["week"].as_str().unwrap().to_owned();
    // What people read: "30 November 2026".
    let week_day = lendhub_domain::people::date(
        time::Date::parse(
            &week,
            time::macros::format_description!("[year]-[month]-[day]"),
        )
        .unwrap(),
    );
    let test = report["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["environment"] == "test")
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(test["decisions"], 7, "{report}");
    let model = &test["models"][0];
    assert_eq!(
        model["model"],
        json!({"id": "pd-scorecard", "version": "1"})
    );
    assert_eq!(model["decisions"], 7);
    assert_eq!(model["alert"], true, "{report}");
    assert!(model["score_psi"].as_f64().unwrap() > 0.25, "{report}");
    let rate = |client: &str| {
        test["partners"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["client_id"] == client)
            .unwrap()
            .clone()
    };
    assert_eq!(
        rate(&a.client),
        json!({"client_id": a.client, "decisions": 6, "approved": 5, "referred": 1, "declined": 0})
    );
    assert_eq!(rate(&b.client)["decisions"], 1);

    // Each partner hears of it, with its own figures only.
    let told = drift_events(&app, TEST, &a.test).await;
    assert_eq!(told.len(), 1, "{told:?}");
    let object = &told[0]["data"]["object"];
    assert_eq!(object["object"], "model_drift");
    assert!(object["id"].as_str().unwrap().starts_with("mdr_"));
    assert_eq!(
        object["model"],
        json!({"id": "pd-scorecard", "version": "1"})
    );
    assert_eq!(object["week_start"], week.as_str());
    assert_eq!(object["decisions"], 6);
    assert_eq!(object["approved"], 5);
    assert_eq!(object["approval_rate"], 0.8333);
    assert_eq!(object["threshold"], 0.25);
    assert_eq!(object["livemode"], false);
    let drifted = object["drifted"].as_array().unwrap();
    assert!(!drifted.is_empty() && drifted.iter().all(|d| d["psi"].as_f64().unwrap() > 0.25));
    assert!(
        !object.to_string().contains(&b.client),
        "another partner's figures: {object}"
    );
    let theirs = drift_events(&app, TEST, &b.test).await;
    assert_eq!(theirs.len(), 1);
    assert_eq!(theirs[0]["data"]["object"]["decisions"], 1);
    assert!(
        drift_events(&app, "/partner/v1", &a.live).await.is_empty(),
        "live decided nothing"
    );

    // The operators are e-mailed what moved and the rates by partner.
    // (Each applicant was mailed their application's link too.)
    let operator = crate::support::oidc::OPERATOR;
    let to_operators = || -> Vec<String> {
        smtp.texts()
            .into_iter()
            .filter(|m| m.contains(&format!("To: {operator}")))
            .collect()
    };
    eventually("the operators' e-mail", || to_operators().len() == 1).await;
    let mail = &to_operators()[0];
    assert!(
        mail.contains(&format!("To: {operator}"))
            && mail.contains("Subject: [test] Credit model pd-scorecard@1 drifted in the week of")
            && mail.contains(&format!(
                "in the test environment in the week of {week_day}"
            ))
            && mail.contains(&a.client)
            && mail.contains("83.3 % approved"),
        "{mail}"
    );

    // Monitored again: the same figures, no second alert.
    let again = monitor(&app, day).await;
    assert_eq!(again["environments"], report["environments"]);
    assert_eq!(drift_events(&app, TEST, &a.test).await.len(), 1);
    assert_eq!(drift_events(&app, TEST, &b.test).await.len(), 1);
    assert_eq!(to_operators().len(), 1);

    // The lender's operator sees the week on the console.
    let person = crate::support::oidc::operator(&app, operator, true).await;
    let (ops, _) = crate::reconciliation::console_sign_in(&app, &person).await;
    let console = ops.get("/dashboard/operations").await;
    assert_eq!(console.status, 200, "{}", console.body);
    let body = &console.body;
    assert!(
        body.contains(&format!("The week of {week_day}, monitored on"))
            && body.contains(
                "<table class=\"model-stability\" data-environment=\"test\" data-model=\"pd-scorecard@1\">"
            )
            && body.contains("7 decisions scored <strong class=\"alert\">drifted: alert raised</strong>")
            && body.contains(&format!(
                "<tr data-partner=\"{}\"><td>test</td><td><code>{}</code></td><td class=\"num\">6</td><td class=\"num\">5</td><td class=\"num\">1</td><td class=\"num\">0</td><td class=\"num\">83.3 %</td></tr>",
                a.client, a.client
            )),
        "{body}"
    );
}
