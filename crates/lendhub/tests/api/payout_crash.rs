//! `kill -9` at each step of a payout (issue #47 item 2): the real binary,
//! paying through a clearing bank in its own process, dies where a crash
//! point (`LENDHUB_CRASH_AT`) stops it — after claiming the payout and
//! before calling the rail, after the rail took it and before anything
//! was kept of the answer, and after the rail's webhook arrived and before
//! it was committed — and is started again on the same database. Each
//! time the borrower is paid exactly once (the rail holds one payment)
//! and the loan is booked exactly once (one `loan.funded`, the drawdown
//! posted once).

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::Site;
use crate::support::clearing_bank::{self, CLIENT};
use crate::support::process::{Process, Simulator, cli, launch_with};

/// What a crash test runs against: the clearing bank and the site, and
/// the environment a lendhub process on it needs.
pub(crate) struct Rig {
    bank: Simulator,
    pub(crate) site: Site,
    env: Vec<(String, String)>,
    pub(crate) hub: String,
}

impl Rig {
    pub(crate) async fn new() -> Self {
        let port = crate::support::unclaimed_port();
        let hub = format!("http://127.0.0.1:{port}");
        let bank = clearing_bank::launch(&hub);
        let site = Site::new().await;
        let (signing, bank_key) = clearing_bank::key_files(&site);
        let (id, account) = lendhub_models::bank::fps::FUNDING_ACCOUNT;
        let rail = "LENDHUB_COUNTERPARTIES__TEST__PAYOUT_RAIL";
        let env = [
            ("LENDHUB_REST_TIER__ENABLED", "true".to_owned()),
            ("LENDHUB_HUB__ADDR", format!("127.0.0.1:{port}")),
            ("LENDHUB_HUB__PUBLIC_URL", hub.clone()),
            (&format!("{rail}__URL"), bank.url.clone()),
            (&format!("{rail}__API_TOKEN"), CLIENT.1.to_owned()),
            (
                &format!("{rail}__SIGNING_KEY_FILE"),
                signing.display().to_string(),
            ),
            (
                &format!("{rail}__BANK_PUBLIC_KEY_FILE"),
                bank_key.display().to_string(),
            ),
            (&format!("{rail}__FUNDING_ACCOUNT__ID"), id.to_owned()),
            // Quoted: the environment's values are read as TOML's, and
            // digits alone would be a number without its leading zeros.
            (
                &format!("{rail}__FUNDING_ACCOUNT__SORT_CODE"),
                format!("\"{}\"", &account[..6]),
            ),
            (
                &format!("{rail}__FUNDING_ACCOUNT__ACCOUNT_NUMBER"),
                format!("\"{}\"", &account[6..]),
            ),
            (
                &format!("{rail}__FUNDING_ACCOUNT__ADDRESS"),
                "Lender Ltd, London".to_owned(),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        Rig {
            bank,
            site,
            env,
            hub,
        }
    }

    /// `lendhub serve`, dying at `crash_at` if given.
    pub(crate) fn serve(&self, crash_at: Option<&str>) -> Process {
        let mut env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        if let Some(point) = crash_at {
            env.push((lendhub_system::CRASH_AT, point));
        }
        launch_with(&self.site, &env)
    }

    /// A test API key of a new partner, made by the CLI.
    fn key(&self) -> String {
        self.partner("applications.read applications.write events.read")
            .1
    }

    /// A new partner holding `scopes`, made by the CLI: its client id and
    /// a test API key.
    pub(crate) fn partner(&self, scopes: &str) -> (String, String) {
        let created: Value = serde_json::from_str(&cli(
            &self.site,
            &[
                "partner", "clients", "create", "--name", "acme", "--scopes", scopes, "--tier",
                "platform",
            ],
        ))
        .unwrap();
        let client = created["client_id"].as_str().unwrap().to_owned();
        let key: Value = serde_json::from_str(&cli(
            &self.site,
            &[
                "partner",
                "api-keys",
                "create",
                "--client-id",
                &client,
                "--environment",
                "test",
            ],
        ))
        .unwrap();
        (client, key["key"].as_str().unwrap().to_owned())
    }

    pub(crate) async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        key: &str,
        body: Value,
    ) -> Value {
        let answer = reqwest::Client::new()
            .request(method, format!("{}/sandbox/v1{path}", self.hub))
            .bearer_auth(key)
            .json(&body)
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .unwrap();
        let status = answer.status();
        let body: Value = answer.json().await.unwrap_or(Value::Null);
        assert!(status.is_success(), "{path}: {status} {body}");
        body
    }

    pub(crate) async fn get(&self, path: &str, key: &str) -> Value {
        let answer = reqwest::Client::new()
            .get(format!("{}/sandbox/v1{path}", self.hub))
            .bearer_auth(key)
            .send()
            .await
            .unwrap();
        answer.json().await.unwrap()
    }

    pub(crate) async fn advance(&self, key: &str, seconds: i64) {
        self.call(
            reqwest::Method::POST,
            "/test_helpers/clock/advance",
            key,
            json!({ "seconds": seconds }),
        )
        .await;
    }

    /// A £10,000 loan to 00000401 over 24 months (`extra` added to its
    /// application), approved and signed: its application's id. Its
    /// payout falls due 300 s on.
    pub(crate) async fn signed(&self, key: &str, extra: Value) -> String {
        let mut application = json!({"business": {"company_number": "00000401"},
            "amount_pence": 1_000_000, "term_months": 24,
            "applicant": {"email": "ada@example.com"}});
        if let (Some(into), Value::Object(more)) = (application.as_object_mut(), extra) {
            into.extend(more);
        }
        let post = reqwest::Method::POST;
        let created = self
            .call(post.clone(), "/applications", key, application)
            .await;
        let id = created["id"].as_str().unwrap().to_owned();
        let submitted = self
            .call(
                post.clone(),
                &format!("/applications/{id}/submit"),
                key,
                json!({"consents": {"credit_search": true, "open_banking": true, "terms": true},
                       "bank": "test_bank_strong"}),
            )
            .await;
        assert_eq!(submitted["status"], "approved", "{submitted}");
        self.call(
            post,
            &format!("/applications/{id}/accept"),
            key,
            json!({"signed_by": "Ada Lovelace", "accept_terms": true}),
        )
        .await;
        id
    }

    /// Whether application `id` is funded within 30 s.
    pub(crate) async fn funded(&self, key: &str, id: &str) -> bool {
        for _ in 0..600 {
            if self.get(&format!("/applications/{id}"), key).await["status"] == "funded" {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    /// Every payment the clearing bank holds.
    pub(crate) async fn payments(&self) -> Vec<Value> {
        reqwest::Client::new()
            .get(format!("{}/_model/fps", self.bank.url))
            .basic_auth(CLIENT.0, Some(CLIENT.1))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// Waits (up to 30 s) for the server to die at its crash point.
pub(crate) fn died(process: &mut Process) {
    for _ in 0..600 {
        if process.child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the server never reached its crash point");
}

async fn pays_once_and_books_once_after_dying_at(point: &str) {
    let rig = Rig::new().await;
    // The server makes the database and its master key; the CLI then
    // makes the partner's key beside it.
    let mut first = rig.serve(Some(point));
    let key = rig.key();
    let id = rig.signed(&key, json!({})).await;
    // The payout falls due, and the server dies on its way.
    rig.advance(&key, 301).await;
    died(&mut first);
    drop(first);

    let _second = rig.serve(None);
    // A minute on, a claim with no word is asked after at the rail (and
    // sent if the rail never had it); a webhook the dead server missed is
    // posted again by the bank meanwhile.
    rig.advance(&key, 61).await;
    assert!(
        rig.funded(&key, &id).await,
        "{point}: the loan was never booked"
    );
    let payments = rig.payments().await;
    assert_eq!(payments.len(), 1, "{point}: paid once: {payments:?}");
    assert_eq!(payments[0]["state"]["state"], "settled");
    let events = rig.get("/events?limit=100", &key).await;
    let funded_events = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "loan.funded")
        .count();
    assert_eq!(funded_events, 1, "{point}: booked once");
    let trial: Value =
        serde_json::from_str(&cli(&rig.site, &["ledger", "trial-balance", "--json"])).unwrap();
    assert_eq!(trial["total_debits_pence"], 1_000_000, "{point}: {trial}");
    assert_eq!(trial["total_credits_pence"], 1_000_000, "{point}: {trial}");
}

#[tokio::test]
async fn kill_9_after_the_claim_before_the_rail_is_called_pays_and_books_once() {
    pays_once_and_books_once_after_dying_at("payout.claimed").await;
}

#[tokio::test]
async fn kill_9_after_the_rail_took_the_payment_before_its_answer_was_kept_pays_and_books_once() {
    pays_once_and_books_once_after_dying_at("payout.sent").await;
}

#[tokio::test]
async fn kill_9_after_the_webhook_arrived_before_its_commit_pays_and_books_once() {
    pays_once_and_books_once_after_dying_at("payout.webhook_received").await;
}
