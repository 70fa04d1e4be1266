//! Events on demand in the REST tier's test environment (`POST
//! /test_helpers/events`) carry the object a real event of their type
//! carries — every member of it, from the same views — with the caller's
//! overrides merged in, so a partner can test a real handler with them.

use std::collections::BTreeSet;

use lendhub_domain::partner::project::Tier;
use lendhub_domain::sandbox::events::EventType;
use serde_json::{Value, json};
use time::Duration;

use crate::rest_accounts::funded_with;
use crate::rest_payments::{SCOPES, link, pay_page, payment};
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::*;

use crate::rest_tier::rest_post as post;

const TEST: &str = "/sandbox/v1";

/// Every member's path in `v`: an object's by name, a list's items as `[]`.
fn members(v: &Value) -> BTreeSet<String> {
    fn walk(v: &Value, at: &str, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (name, child) in m {
                    let path = if at.is_empty() {
                        name.clone()
                    } else {
                        format!("{at}.{name}")
                    };
                    out.insert(path.clone());
                    walk(child, &path, out);
                }
            }
            Value::Array(items) => {
                for item in items {
                    walk(item, &format!("{at}[]"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    walk(v, "", &mut out);
    out
}

/// A test event of `kind` with `data` as its overrides: its `data.object`.
async fn made(app: &App, key: &str, kind: &str, data: Option<Value>) -> Value {
    let mut body = json!({ "type": kind });
    if let Some(d) = data {
        body["data"] = d;
    }
    let r = post(app, &format!("{TEST}/test_helpers/events"), key, body).await;
    assert_eq!(r.status, 201, "{kind}: {}", r.body);
    assert_eq!(r.body["type"], kind);
    r.body["data"]["object"].clone()
}

/// The newest event of `kind` in the log: its `data.object`.
async fn newest(app: &App, key: &str, kind: &str) -> Value {
    let r = rest_get(app, &format!("{TEST}/events?type={kind}"), Some(key)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let object = r.body["data"][0]["data"]["object"].clone();
    assert!(object.is_object(), "no {kind} event: {}", r.body);
    object
}

#[tokio::test]
async fn a_test_event_carries_the_members_a_real_event_of_its_type_carries() {
    let app = rest_app().await;
    // A real loan, funded, and a real £500 payment paid on the pay page.
    let (key, account) = funded_with(&app, SCOPES).await;
    let created = link(
        &app,
        &key,
        "test-events-0001",
        json!({"account_id": account, "amount_pence": 50_000, "reference": "TEST-EVENT"}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let paid_id = created.body["id"].as_str().unwrap().to_owned();
    let url = created.body["url"].as_str().unwrap().to_owned();
    let (status, _) = pay_page(&app, &url, Some("strong")).await;
    assert_eq!(status, 200);
    app.advance(Duration::minutes(2));
    eventually_async("the payment settles", || async {
        payment(&app, &key, &paid_id).await["status"] == "paid"
    })
    .await;

    let real_account = newest(&app, &key, "account.activated").await;
    assert!(
        real_account.get("created_at").is_none(),
        "an account has no created_at: {real_account}"
    );
    let real_payment = newest(&app, &key, "payment.paid").await;

    // Each type the real flow emitted: the real event is read before the
    // test event of its type is made, so the newest of the type is real.
    for kind in [
        "application.created",
        "application.submitted",
        "application.funded",
        "decision.completed",
        "offer.accepted",
        "agreement.signed",
        "account.activated",
        "loan.funded",
        "payment.created",
        "payment.processing",
        "payment.paid",
        "payment.settled",
    ] {
        let real = newest(&app, &key, kind).await;
        let test = made(&app, &key, kind, None).await;
        assert_eq!(members(&test), members(&real), "{kind}: {test} vs {real}");
        assert_eq!(test["object"], real["object"], "{kind}");
        assert_ne!(test["id"], real["id"], "{kind}: a fresh id");
        assert_eq!(test["status"], real["status"], "{kind}: the type's status");
    }

    // Overrides merge in member by member; the other members stay.
    let failed = made(
        &app,
        &key,
        "payment.failed",
        Some(json!({"object": {"amount_pence": 4002, "failure_reason": "payer_cancelled"}})),
    )
    .await;
    assert_eq!(failed["amount_pence"], 4002);
    assert_eq!(failed["failure_reason"], "payer_cancelled");
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["currency"], "GBP");
    assert!(failed["account_id"].as_str().unwrap().starts_with("acc_"));
    assert_eq!(members(&failed), members(&real_payment));

    let referenced = made(
        &app,
        &key,
        "application.created",
        Some(json!({"object": {"reference": "DEAL-42"}})),
    )
    .await;
    assert_eq!(referenced["reference"], "DEAL-42");
    assert_eq!(referenced["business"]["company_number"], "00000401");
    assert_eq!(referenced["amount_pence"], 1_000_000);
    assert_eq!(referenced["status"], "created");

    let in_arrears = made(
        &app,
        &key,
        "account.activated",
        Some(json!({"object": {"balance": {"arrears_pence": 100}}})),
    )
    .await;
    assert_eq!(in_arrears["balance"]["arrears_pence"], 100);
    assert_eq!(
        in_arrears["balance"]["principal_outstanding_pence"],
        1_000_000
    );
    assert_eq!(members(&in_arrears), members(&real_account));
    // A member the real object lacks is the caller's to add.
    let stamped = made(
        &app,
        &key,
        "account.activated",
        Some(json!({"object": {"created_at": "2030-01-01T00:00:00Z"}})),
    )
    .await;
    assert_eq!(stamped["created_at"], "2030-01-01T00:00:00Z");
}

/// Every type of the catalogue has a default: an object of the type's kind
/// in the test environment, whatever the type.
#[tokio::test]
async fn every_type_of_the_catalogue_has_a_default_object_of_its_kind() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, "events.read", Tier::Platform).await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    for t in EventType::HUB {
        let (kind, prefix) = t.hub_object();
        let object = made(&app, &key, t.as_str(), None).await;
        assert_eq!(object["object"], kind, "{}", t.as_str());
        assert!(
            object["id"].as_str().unwrap().starts_with(prefix),
            "{}: {object}",
            t.as_str()
        );
        assert_ne!(object["livemode"], true, "{}", t.as_str());
    }
    let expired = made(&app, &key, "application.expired", None).await;
    assert_eq!(expired["status"], "expired");
    let review = made(&app, &key, "identity.review_required", None).await;
    assert_eq!(review["status"], "review_required");
    assert_eq!(review["flags"], json!(["not_a_director"]));
    let closed = made(&app, &key, "account.closed", None).await;
    assert_eq!(closed["status"], "settled");
    assert_eq!(closed["balance"]["payoff_pence"], 0);
    let revoked = made(&app, &key, "mandate.revoked", None).await;
    assert_eq!(revoked["status"], "revoked");
    let completed = made(&app, &key, "schedule.completed", None).await;
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["remaining"], 0);
    let finalized = made(&app, &key, "invoice.finalized", None).await;
    assert_eq!(finalized["status"], "finalized");
    assert_eq!(finalized["funded_originations"], 1);
    let payout = made(&app, &key, "payout.paid", None).await;
    assert_eq!(payout["status"], "paid");
    assert!(
        payout["sub_account_id"]
            .as_str()
            .unwrap()
            .starts_with("sub_")
    );
}
