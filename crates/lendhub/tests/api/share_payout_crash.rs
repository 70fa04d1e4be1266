//! `kill -9` on a sub-account's payout's way over the rail (issue #47
//! item 4): the real binary dies after claiming the payout and before
//! calling the rail, or after the rail took it and before anything was
//! kept of the answer, and is started again on the same database. Each
//! time the sub-account is paid exactly once (the rail holds one payment
//! for the payout) and the payout is booked once (one `payout.paid`, the
//! hold posted once, nothing left owed). The webhook's crash point is the
//! disbursement's (`payout_crash`): one path takes every rail webhook.

use std::time::Duration;

use serde_json::{Value, json};

use crate::payout_crash::{Rig, died};
use crate::rest_statements::{invoice_date, year_ahead};
use crate::support::process::cli;

const SCOPES: &str = "applications.read applications.write events.read accounts.manage \
                      billing.read";

async fn a_share_is_paid_once_after_dying_at(point: &str) {
    let rig = Rig::new().await;
    let mut first = rig.serve(Some(point));
    let (client, key) = rig.partner(SCOPES);
    cli(
        &rig.site,
        &[
            "billing",
            "terms",
            "set",
            &client,
            "--model",
            "revenue-share",
        ],
    );
    let sub: Value = reqwest::Client::new()
        .post(format!("{}/sandbox/v1/sub-accounts", rig.hub))
        .bearer_auth(&key)
        .header("idempotency-key", "sub-broker-crash")
        .json(&json!({"name": "Broker Ltd", "payout_account": {
            "name": "Broker Ltd", "sort_code": "040004", "account_number": "10000010"}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let sub_id = sub["id"].as_str().expect("a sub-account").to_owned();

    let march = format!("{}-03", year_ahead());
    let to = |at: String| json!({ "to": at });
    let advance = "/test_helpers/clock/advance";
    rig.call(
        reqwest::Method::POST,
        advance,
        &key,
        to(format!("{march}-02T09:00:00Z")),
    )
    .await;
    let id = rig.signed(&key, json!({ "introduction_id": sub_id })).await;
    rig.advance(&key, 301).await;
    assert!(
        rig.funded(&key, &id).await,
        "{point}: the loan was never funded"
    );

    // The month is finalized on its invoice date, its payout falls due at
    // once, and the server dies on the payout's way.
    rig.call(
        reqwest::Method::POST,
        advance,
        &key,
        to(format!("{}T09:00:00Z", invoice_date(&march))),
    )
    .await;
    died(&mut first);
    drop(first);

    let _second = rig.serve(None);
    // A minute on, a claim with no word is asked after at the rail (and
    // sent if the rail never had it).
    rig.advance(&key, 61).await;
    let mut payout = Value::Null;
    for _ in 0..600 {
        payout = rig.get("/payouts", &key).await["data"][0].clone();
        if payout["status"] == "paid" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(payout["status"], "paid", "{point}: {payout}");
    let gross = payout["gross_pence"].as_i64().unwrap();
    assert!(gross > 0);
    let payments = rig.payments().await;
    let shares: Vec<&Value> = payments
        .iter()
        .filter(|p| p["end_to_end_id"] == payout["id"])
        .collect();
    assert_eq!(
        payments.len(),
        2,
        "{point}: the loan and the share, once each: {payments:?}"
    );
    assert_eq!(shares.len(), 1, "{point}: {payments:?}");
    assert_eq!(shares[0]["state"]["state"], "settled");
    assert_eq!(shares[0]["payee"], "04000410000010");
    let events = rig.get("/events?limit=100", &key).await;
    let paid_events = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "payout.paid")
        .count();
    assert_eq!(paid_events, 1, "{point}: booked once");
    let trial: Value =
        serde_json::from_str(&cli(&rig.site, &["ledger", "trial-balance", "--json"])).unwrap();
    assert_eq!(
        trial["total_debits_pence"], trial["total_credits_pence"],
        "{point}: {trial}"
    );
    let payable = trial["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["account"] == "lender:revenue_share_payable")
        .map_or(0, |a| a["balance_pence"].as_i64().unwrap());
    assert_eq!(payable, 0, "{point}: the share left once: {trial}");
}

#[tokio::test]
async fn kill_9_after_a_payouts_claim_before_the_rail_is_called_pays_the_share_once() {
    a_share_is_paid_once_after_dying_at("share_payout.claimed").await;
}

#[tokio::test]
async fn kill_9_after_the_rail_took_a_payout_before_its_answer_was_kept_pays_the_share_once() {
    a_share_is_paid_once_after_dying_at("share_payout.sent").await;
}
