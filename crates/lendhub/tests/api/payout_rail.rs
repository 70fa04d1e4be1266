//! The payout rail (issue #47 items 1 and 2): the test environment paying
//! out through a clearing bank in its own process (`lendhub simulate
//! bank`, speaking ClearBank's API), configured by
//! `counterparties.test.payout_rail`. A signed loan is booked only when
//! the rail confirms it; a withdrawal while the money is with the rail is
//! refused; a lost webhook is found by asking; a repeated webhook books
//! nothing twice; a webhook not signed by the bank is refused.

use base64::Engine;
use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};
use time::Duration;

use crate::rest_tier::{api_key, rest_get, rest_partner, rest_post as post};
use crate::support::clearing_bank::{self, CLIENT};
use crate::support::process::{Simulator, cli};
use crate::support::*;

const TEST: &str = "/sandbox/v1";

/// The clearing bank, its own process.
struct ClearingBank {
    _process: Simulator,
    url: String,
}

impl ClearingBank {
    async fn admin(&self, method: reqwest::Method, path: &str) -> Value {
        let answer = reqwest::Client::new()
            .request(method, format!("{}{path}", self.url))
            .basic_auth(CLIENT.0, Some(CLIENT.1))
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "{path}: {}", answer.status());
        answer.json().await.unwrap_or(Value::Null)
    }

    /// Every payment the rail holds.
    async fn payments(&self) -> Vec<Value> {
        self.admin(reqwest::Method::GET, "/_model/fps")
            .await
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

/// A hub whose test environment pays out through a clearing bank in its
/// own process, which posts its webhooks back to the hub.
async fn beside_a_clearing_bank() -> (App, ClearingBank, String) {
    let port = crate::support::unclaimed_port();
    let hub = format!("http://127.0.0.1:{port}");
    let process = clearing_bank::launch(&hub);
    let bank = ClearingBank {
        url: process.url.clone(),
        _process: process,
    };
    let site = Site::new().await;
    let (signing, bank_key) = clearing_bank::key_files(&site);
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    config.hub.addr = format!("127.0.0.1:{port}").parse().unwrap();
    config.hub.public_url = Some(hub.parse().unwrap());
    let (id, account) = lendhub_models::bank::fps::FUNDING_ACCOUNT;
    config.counterparties.test.payout_rail = lendhub::config::PayoutRail {
        url: Some(bank.url.clone()),
        api_token: Some(CLIENT.1.to_owned().into()),
        signing_key_file: Some(signing),
        bank_public_key_file: Some(bank_key),
        funding_account: Some(lendhub::config::FundingAccount {
            id: id.to_owned(),
            sort_code: account[..6].to_owned(),
            account_number: account[6..].to_owned(),
            address: "Lender Ltd, 1 Test Street, London".to_owned(),
        }),
        // Payers pay into the embedded model bank, not this one.
        collection_account_id: None,
        timeout_ms: 5_000,
    };
    let app = App::spawn_with(config, site).await;
    let (client, _) = rest_partner(
        &app,
        "applications.read applications.write decisions.read events.read",
        Tier::Platform,
    )
    .await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    (app, bank, key)
}

/// An approved application of £10,000 paid to `bank`, signed, and the
/// clock moved to when its payout falls due; its id.
async fn signed(app: &App, key: &str, bank: &str) -> String {
    app.advance(Duration::seconds(1)); // the create sub-limit
    let r = post(
        app,
        &format!("{TEST}/applications"),
        key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 24, "applicant": {"email": "ada@example.com"}, "reference": "RAIL-1"}),
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
    assert_eq!(r.body["status"], "approved", "{}", r.body);
    let r = post(
        app,
        &format!("{TEST}/applications/{id}/accept"),
        key,
        json!({"signed_by": "Ada Lovelace", "accept_terms": true}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    app.advance(Duration::minutes(5));
    id
}

async fn application(app: &App, key: &str, id: &str) -> Value {
    rest_get(app, &format!("{TEST}/applications/{id}"), Some(key))
        .await
        .body
}

async fn count_events(app: &App, key: &str, kind: &str) -> usize {
    let r = rest_get(app, &format!("{TEST}/events?limit=100"), Some(key)).await;
    r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == kind)
        .count()
}

fn total_debits(app: &App) -> i64 {
    let trial: Value =
        serde_json::from_str(&cli(&app._site, &["ledger", "trial-balance", "--json"])).unwrap();
    assert_eq!(
        trial["total_debits_pence"], trial["total_credits_pence"],
        "{trial}"
    );
    trial["total_debits_pence"].as_i64().unwrap()
}

/// The payment the rail received for application `id`, once it has one.
async fn sent_payment(bank: &ClearingBank) -> Value {
    propagated("the rail receives the payout", || async {
        !bank.payments().await.is_empty()
    })
    .await;
    let mut found = bank.payments().await;
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

#[tokio::test]
async fn a_payout_is_booked_only_when_the_rail_confirms_it() {
    let (app, bank, key) = beside_a_clearing_bank().await;
    bank.admin(reqwest::Method::PUT, "/_model/fps/hold").await;
    let id = signed(&app, &key, "test_bank_strong").await;
    let payment = sent_payment(&bank).await;
    // Sent from the funding account to the applicant's account, under the
    // intent's id, for the offer's amount.
    assert!(
        payment["end_to_end_id"]
            .as_str()
            .unwrap()
            .starts_with("dsb_"),
        "{payment}"
    );
    assert_eq!(payment["payee"], "04000410000010");
    assert_eq!(payment["amount"], 1_000_000);
    assert_eq!(payment["state"]["state"], "in_progress");

    // With the rail, not yet arrived: nothing is booked, and the money is
    // committed, so a withdrawal is refused.
    let waiting = application(&app, &key, &id).await;
    assert_eq!(waiting["status"], "approved", "{waiting}");
    assert!(waiting["account_id"].is_null());
    assert_eq!(total_debits(&app), 0, "only a pending drawdown");
    let r = post(
        &app,
        &format!("{TEST}/applications/{id}/withdraw"),
        &key,
        json!({"reason": "changed our minds"}),
    )
    .await;
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(r.body["error"]["code"], "conflict", "{}", r.body);

    // The bank settles it and says so: the loan is booked, once.
    bank.admin(reqwest::Method::DELETE, "/_model/fps/hold")
        .await;
    propagated("the settlement is booked", || async {
        application(&app, &key, &id).await["status"] == "funded"
    })
    .await;
    let funded = application(&app, &key, &id).await;
    assert!(funded["account_id"].as_str().unwrap().starts_with("acc_"));
    assert_eq!(count_events(&app, &key, "loan.funded").await, 1);
    assert_eq!(total_debits(&app), 1_000_000, "the drawdown is posted");
    assert_eq!(bank.payments().await.len(), 1, "paid once");
}

#[tokio::test]
async fn a_lost_webhook_is_found_by_asking_the_rail_and_a_repeated_one_books_nothing() {
    let (app, bank, key) = beside_a_clearing_bank().await;
    bank.admin(reqwest::Method::PUT, "/_model/fps/silence")
        .await;
    let id = signed(&app, &key, "test_bank_strong").await;
    sent_payment(&bank).await;
    propagated("the rail settles the payout", || async {
        bank.payments().await[0]["state"]["state"] == "settled"
    })
    .await;
    let payment = bank.payments().await.remove(0);
    // The bank's word never came: still waiting.
    assert_eq!(application(&app, &key, &id).await["status"], "approved");
    // A minute on, the worker asks the rail, and books what it says.
    app.advance(Duration::minutes(1));
    propagated("the worker finds the settlement", || async {
        application(&app, &key, &id).await["status"] == "funded"
    })
    .await;
    assert_eq!(count_events(&app, &key, "loan.funded").await, 1);
    // The webhook arrives after all, twice: taken (signed nonce answered),
    // and nothing booked again.
    let e2e = payment["end_to_end_id"].as_str().unwrap().to_owned();
    bank.admin(reqwest::Method::DELETE, "/_model/fps/silence")
        .await;
    for _ in 0..2 {
        let answer = bank
            .admin(reqwest::Method::POST, &format!("/_model/fps/{e2e}/notify"))
            .await;
        assert_eq!(answer["taken"], true, "{answer}");
    }
    assert_eq!(count_events(&app, &key, "loan.funded").await, 1);
    assert_eq!(total_debits(&app), 1_000_000);
    assert_eq!(bank.payments().await.len(), 1);
}

#[tokio::test]
async fn a_payout_the_payees_bank_rejects_is_voided_with_its_reason() {
    let (app, bank, key) = beside_a_clearing_bank().await;
    let id = signed(&app, &key, "test_bank_closed").await;
    let payment = sent_payment(&bank).await;
    assert_eq!(payment["payee"], "04000499999997");
    propagated("the rejection is booked", || async {
        application(&app, &key, &id).await["funding_failure_reason"] == "account_closed"
    })
    .await;
    let failed = application(&app, &key, &id).await;
    assert_eq!(failed["status"], "approved");
    assert!(failed["account_id"].is_null());
    assert_eq!(count_events(&app, &key, "loan.funded").await, 0);
    assert_eq!(
        count_events(&app, &key, "application.funding_failed").await,
        1
    );
    assert_eq!(total_debits(&app), 0, "the pending drawdown is voided");
}

#[tokio::test]
async fn a_webhook_not_signed_by_the_rail_is_refused() {
    let (app, _bank, _key) = beside_a_clearing_bank().await;
    let body = json!({"Type": "TransactionSettled", "Version": 6, "Nonce": 7, "Payload": {
        "TransactionId": "d9162680-7d35-7994-4e38-fa80716899a2", "Status": "Settled",
        "EndToEndTransactionId": "dsb_01JZ0000000000000000000001", "Amount": 100.0,
        "DebitCreditCode": "Debit", "IsReturn": false, "TimestampSettled": "2026-11-30T10:00:00Z"}})
    .to_string();
    // Signed, but with lendhub's own key, not the bank's.
    let forged = lendhub_system::RsaSigner::from_pem(lendhub_models::keys::LENDHUB_SIGNING_PEM)
        .unwrap()
        .sign_rs256(body.as_bytes())
        .unwrap();
    let url = format!("{}/payout-rail/events/test", app.hub);
    for signature in [
        Some(base64::engine::general_purpose::STANDARD.encode(forged)),
        Some("not base64 at all".to_owned()),
        None,
    ] {
        let mut request = reqwest::Client::new().post(&url).body(body.clone());
        if let Some(s) = signature {
            request = request.header("DigitalSignature", s);
        }
        let answer = request.send().await.unwrap();
        assert_eq!(answer.status(), 400);
        let problem: Value = answer.json().await.unwrap();
        assert_eq!(problem["error"]["code"], "signature_invalid", "{problem}");
    }
}

/// The refund's payment, once the rail's word reached it.
async fn refund_ended(app: &App, key: &str, id: &str, status: &str) -> Value {
    for _ in 0..200 {
        let r = rest_get(app, &format!("{TEST}/payments/{id}"), Some(key)).await;
        if r.body["refund"]["status"] == status {
            return r.body;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the refund of {id} never became {status}");
}

/// A refund sends the money back over the rail to the account the payer's
/// bank said paid (`Data.Refund.Account`): pending, then paid on the
/// rail's word (`payment.refund_paid`); refused by the payer's bank, the
/// payment is `paid` again (`payment.refund_failed`), and the ledger's
/// hold is voided, so the trial balance never counts money that did not
/// move.
#[tokio::test]
async fn a_refund_is_paid_back_over_the_rail_or_refused_by_the_payers_bank() {
    use crate::rest_payments::{SCOPES, link, pay_page, payment, refund_payment};
    let (app, bank, _) = beside_a_clearing_bank().await;
    let (client, _) = rest_partner(&app, SCOPES, Tier::Platform).await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let account = crate::rest_accounts::fund(&app, &key).await;
    let (keys, kid) = crate::rest_webhooks::request_key(&app, &client).await;
    let mut paid = Vec::new();
    for (n, pence) in [(1, 46_589), (2, 12_000)] {
        let created = link(
            &app,
            &key,
            &format!("refund-rail-{n}"),
            json!({"account_id": account, "amount_pence": pence}),
        )
        .await;
        pay_page(&app, created.body["url"].as_str().unwrap(), Some("strong")).await;
        paid.push(created.body["id"].as_str().unwrap().to_owned());
    }
    app.advance(Duration::minutes(2));
    for id in &paid {
        propagated("the payment settles", || async {
            payment(&app, &key, id).await["status"] == "paid"
        })
        .await;
    }
    let before = total_debits(&app);

    // Refunded, and paid back to the account that paid.
    let r = refund_payment(
        &app,
        &key,
        Some((&keys, &kid)),
        paid[0].clone(),
        "refund-back-1",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "refunded");
    assert_eq!(r.body["refund"]["status"], "pending", "{}", r.body);
    assert_eq!(r.body["refund"]["amount_pence"], 46_589);
    let refund_id = r.body["refund"]["id"].as_str().unwrap().to_owned();
    assert!(refund_id.starts_with("rfd_"), "{refund_id}");
    let done = refund_ended(&app, &key, &paid[0], "paid").await;
    assert_eq!(done["status"], "refunded");
    assert!(done["refund"]["paid_at"].is_string(), "{done}");
    let strong = lendhub_domain::open_banking::test_accounts::find("strong").unwrap();
    let sent: Vec<Value> = bank
        .payments()
        .await
        .into_iter()
        .filter(|p| p["end_to_end_id"] == refund_id.as_str())
        .collect();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["payee"], strong.sort_code_account_number);
    assert_eq!(sent[0]["amount"], 46_589);
    assert_eq!(count_events(&app, &key, "payment.refund_paid").await, 1);
    assert_eq!(
        total_debits(&app),
        before + 46_589,
        "the refund posted once: the principal owed again, out of the funding account"
    );

    // The payer's bank refuses the next: the payment is paid again.
    let refused = reqwest::Client::new()
        .put(format!("{}/_model/fps/reject", bank.url))
        .basic_auth(CLIENT.0, Some(CLIENT.1))
        .json(&json!({"code": "AC07"}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 204);
    let r = refund_payment(
        &app,
        &key,
        Some((&keys, &kid)),
        paid[1].clone(),
        "refund-back-2",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let failed = refund_ended(&app, &key, &paid[1], "failed").await;
    assert_eq!(failed["status"], "paid", "{failed}");
    assert_eq!(failed["refund"]["failure_reason"], "account_closed");
    assert_eq!(count_events(&app, &key, "payment.refund_failed").await, 1);
    assert_eq!(
        total_debits(&app),
        before + 46_589,
        "a refused refund moves nothing in the ledger"
    );
}
