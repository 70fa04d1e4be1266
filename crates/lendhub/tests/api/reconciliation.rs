//! Daily reconciliation (issue #47 item 6) through `lendhub reconcile`
//! against a running server, whose sweep reads the model bank's
//! statements of the lender's accounts (ClearBank's account transactions)
//! and compares them with the ledger: a collection the bank settled whose
//! callback was lost is found and posted (`payment.paid`); a posting with
//! no bank movement is an open item; a day reconciled again finds nothing
//! new.

use std::process::Command;

use lendhub_domain::ledger::movements as m;
use lendhub_domain::money::Money;
use lendhub_store::{LedgerWrite, Write, WriteSet};
use serde_json::{Value, json};

use crate::rest_accounts::funded_with;
use crate::rest_payments::{SCOPES, link, pay_page, payment};
use crate::rest_tier::{rest_app, rest_get};
use crate::support::process::cli;
use crate::support::*;

const TEST: &str = "/sandbox/v1";

/// `lendhub reconcile --date day --json`: its exit code and report. The
/// command waits for the server, which runs on this test's runtime: it is
/// run off it.
async fn reconcile(app: &App, day: &str) -> (i32, Value) {
    let env = app._site.env();
    let day = day.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_lendhub"))
            .args(["reconcile", "--date", &day, "--json", "--wait-secs", "60"])
            .envs(env)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {} {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), report)
}

/// The report's line for the test environment's `account`.
fn side<'a>(report: &'a Value, account: &str) -> &'a Value {
    report["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["environment"] == "test" && a["account"] == account)
        .unwrap()
}

/// A ledger account's posted balance in the trial balance, if listed.
fn balance(app: &App, name: &str) -> Option<i64> {
    let tb: Value =
        serde_json::from_str(&cli(&app._site, &["ledger", "trial-balance", "--json"])).unwrap();
    assert_eq!(tb["total_debits_pence"], tb["total_credits_pence"], "{tb}");
    tb["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["account"] == name)
        .map(|a| a["balance_pence"].as_i64().unwrap())
}

#[tokio::test]
async fn a_settled_collection_whose_callback_was_lost_is_found_and_posted() {
    let app = rest_app().await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let created = link(
        &app,
        &key,
        "link-lost",
        json!({"account_id": account, "amount_pence": 46_589}),
    )
    .await;
    let id = created.body["id"].as_str().unwrap().to_owned();
    let url = created.body["url"].as_str().unwrap().to_owned();

    // Paid at the bank; lendhub has not heard it settled (nobody asks
    // until the clock moves): the collection is pending in the ledger.
    pay_page(&app, &url, Some("strong")).await;
    let processing = payment(&app, &key, &id).await;
    assert_eq!(processing["status"], "processing");
    assert_eq!(
        balance(&app, "lender:collections").unwrap_or(0),
        0,
        "held pending, not posted"
    );
    let day = &processing["authorised_at"].as_str().unwrap()[..10];

    let (code, report) = reconcile(&app, day).await;
    assert_eq!(code, 0, "nothing left open: {report}");
    assert_eq!(report["date"], day);
    let collections = side(&report, "collections");
    assert_eq!(collections["read"], true);
    assert_eq!(collections["bank_movements"], 1, "{report}");
    let items = collections["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{report}");
    assert_eq!(items[0]["end_to_end_id"], id.as_str());
    assert_eq!(items[0]["mismatch"], "not_in_ledger");
    assert_eq!(items[0]["bank_amount"], 46_589);
    assert_eq!(items[0]["resolution"]["resolution"], "posted");
    // The loan's drawdown left the funding account that day, and the
    // ledger shows it: nothing to report there.
    assert_eq!(side(&report, "funding")["items"], json!([]), "{report}");

    // Posted as the bank's answer would have posted it.
    let paid = payment(&app, &key, &id).await;
    assert_eq!(paid["status"], "paid");
    assert_eq!(balance(&app, "lender:collections"), Some(46_589));
    let events = rest_get(&app, &format!("{TEST}/events?limit=100"), Some(&key)).await;
    assert!(
        events.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "payment.paid" && e["data"]["object"]["id"] == id.as_str()),
        "{}",
        events.body
    );

    // The day again: the bank and the ledger agree now.
    let (code, again) = reconcile(&app, day).await;
    assert_eq!(code, 0);
    assert_eq!(side(&again, "collections")["items"], json!([]), "{again}");
    assert_eq!(side(&again, "collections")["ledger_movements"], 1);
    let listed = cli(&app._site, &["reconcile", "--items"]);
    assert!(
        listed.contains(&id) && listed.contains("posted"),
        "{listed}"
    );
}

/// £120 the ledger says reached the collection account under a payment
/// link's id, which the bank never received: the link's id and the day.
async fn phantom_collection(app: &App) -> (String, String) {
    let (key, account) = funded_with(app, SCOPES).await;
    let created = link(
        app,
        &key,
        "link-phantom",
        json!({"account_id": account, "amount_pence": 12_000}),
    )
    .await;
    let id = created.body["id"].as_str().unwrap().to_owned();
    let at = time::OffsetDateTime::parse(
        created.body["created_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let phantom = m::unidentified("phantom", Money::pence(12_000), at)
        .unwrap()
        .known_at_bank_as(id.as_str());
    let writes = WriteSet {
        writes: vec![Write::Ledger(LedgerWrite::Post(phantom))],
        ..WriteSet::default()
    };
    app.server().store.commit(writes).await.unwrap();
    (id, at.date().to_string())
}

/// In headless Chromium, on a phone-sized screen, the lender's operator
/// signs in at the console's door, reads the open item, and signs out.
#[tokio::test]
async fn in_chromium_an_operator_reads_an_open_item_and_signs_out() {
    let app = rest_app().await;
    let (id, day) = phantom_collection(&app).await;
    let (code, _) = reconcile(&app, &day).await;
    assert_eq!(code, 2);
    let person = oidc::operator(&app, oidc::OPERATOR, true).await;
    let r = crate::support::python_json(
        "operations_browser.py",
        vec![
            ("BASE", app.hub.clone()),
            ("EMAIL", person.email.clone()),
            ("PASSWORD", oidc::PASSWORD.to_owned()),
        ],
    )
    .await;
    assert_eq!(r["operator"], oidc::OPERATOR, "{r}");
    assert!(
        r["summary"].as_str().unwrap().starts_with("1 open item(s)"),
        "{r}"
    );
    assert_eq!(
        r["items"],
        json!([{"end_to_end_id": id, "mismatch": "not_at_bank", "ledger": "£120.00",
                "resolution": "open", "open": true}]),
        "{r}"
    );
    assert!(
        r["page_width"].as_f64().unwrap() <= 375.0,
        "the page fits a phone: {r}"
    );
    assert_eq!(r["signed_out"], "You have signed out", "{r}");
    assert!(
        r["signed_out_url"]
            .as_str()
            .unwrap()
            .ends_with("/dashboard/operations/signed-out"),
        "{r}"
    );
    assert_eq!(r["sign_in_again"], "/dashboard/operations/sign-in", "{r}");
    assert!(
        r["after_sign_out"].as_str().unwrap().contains("/sign-in?"),
        "signed out, the console sends the browser to sign in again: {r}"
    );
}

#[tokio::test]
async fn a_posting_with_no_bank_movement_is_left_open_for_a_person() {
    let app = rest_app().await;
    // Money the ledger says reached the collection account under the
    // payment's id, which the bank never received.
    let (id, day) = phantom_collection(&app).await;
    let (code, report) = reconcile(&app, &day).await;
    assert_eq!(code, 2, "an item is open: {report}");
    let items = side(&report, "collections")["items"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(items.len(), 1, "{report}");
    assert_eq!(items[0]["end_to_end_id"], id.as_str());
    assert_eq!(items[0]["mismatch"], "not_at_bank");
    assert_eq!(items[0]["ledger_amount"], 12_000);
    assert_eq!(items[0]["bank_amount"], Value::Null);
    assert_eq!(items[0]["resolution"]["resolution"], "open");

    // Found once, however often the day is reconciled.
    let (code, _) = reconcile(&app, &day).await;
    assert_eq!(code, 2);
    let listed: Value =
        serde_json::from_str(&cli(&app._site, &["reconcile", "--items", "--json"])).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");

    // Monitoring sees a day with open items (the recorder is the test
    // process's, shared by tests reconciling at once: its value is
    // whichever day ran last).
    let ops = app.server.as_ref().unwrap().ops_addr;
    let metrics = reqwest::get(format!("http://{ops}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("# TYPE lendhub_reconciliation_open_items gauge")
            && metrics.contains("\nlendhub_reconciliation_open_items "),
        "{metrics}"
    );

    // The lender's operator sees it on the operations console.
    let person = oidc::operator(&app, oidc::OPERATOR, true).await;
    let (ops, landed) = console_sign_in(&app, &person).await;
    assert_eq!(landed.status, 303, "{}", landed.body);
    assert_eq!(landed.location(), "/dashboard/operations");
    let cookie = landed
        .set_cookies()
        .into_iter()
        .find(|c| c.starts_with("lendhub_ops="))
        .unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("Path=/dashboard/operations"),
        "{cookie}"
    );
    let console = ops.get("/dashboard/operations").await;
    assert_eq!(console.status, 200, "{}", console.body);
    assert!(
        console.body.contains("1 open item(s)")
            && console.body.contains(&format!("<code>{id}</code>"))
            && console.body.contains("not_at_bank")
            && console.body.contains("£120.00")
            && console.body.contains(oidc::OPERATOR),
        "{}",
        console.body
    );
    // Partner pages are not the operator's: their session is no partner's.
    assert_eq!(ops.get("/dashboard").await.location(), "/dashboard/sign-in");
    let forged = ops
        .post(
            "/dashboard/operations/sign-out",
            &[("csrf_token", "forged")],
        )
        .await;
    assert_eq!(forged.status, 403);
    let csrf = console.hidden("csrf_token").unwrap();
    let out = ops
        .post("/dashboard/operations/sign-out", &[("csrf_token", &csrf)])
        .await;
    assert_eq!(out.status, 303, "{}", out.body);
    let after = ops.get("/dashboard/operations").await;
    assert_eq!(after.location(), "/dashboard/operations/sign-in");

    // Anyone else who signs in at the console's door is refused (an
    // address that only looks like the operator's too), and holds no
    // session of it.
    for person in [
        oidc::person(&app).await,
        oidc::operator(&app, "operator@lender.example.org", true).await,
    ] {
        let (other, landed) = console_sign_in(&app, &person).await;
        assert_eq!(landed.status, 403, "{}", landed.body);
        assert!(
            landed.body.contains("Not a lender operator"),
            "{}",
            landed.body
        );
        assert_eq!(
            other.get("/dashboard/operations").await.location(),
            "/dashboard/operations/sign-in"
        );
    }
}

/// Signing in at the operations console's door: the browser, and the
/// callback's answer.
pub(crate) async fn console_sign_in(
    app: &App,
    person: &oidc::Person,
) -> (oidc::Browser, oidc::Page) {
    let hub = oidc::Browser::at(&app.hub);
    let first = hub.get("/dashboard/operations").await;
    assert_eq!(first.status, 303, "{}", first.body);
    assert_eq!(first.location(), "/dashboard/operations/sign-in");
    let start = hub.get("/dashboard/operations/sign-in").await;
    assert_eq!(start.status, 303);
    let sso = oidc::Browser::at(&app.sso);
    let started = sso.get(start.location()).await;
    let mut answer = oidc::sign_in(&sso, &started, person).await;
    if answer.location().starts_with("/consent") {
        answer = oidc::decide(&sso, answer.location(), true).await;
    }
    let callback = answer.location().to_owned();
    assert!(callback.contains("/dashboard/callback?"), "{callback}");
    let back = hub.get(&callback).await;
    (hub, back)
}
