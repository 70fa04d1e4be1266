//! Money paid beyond what an account owes (issue #44, items 1 and 2): a
//! link above the payoff or on a settled account is refused; two links
//! racing to settle it leave a credit that is shown, announced and handed
//! back by a refund; no amount the API takes can overflow a balance.

use serde_json::json;
use time::Duration;

use crate::partner::assert_hub_error;
use crate::rest_payments::{SCOPES, link, pay_page, payment, refund_payment};
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::*;

const TEST: &str = "/sandbox/v1";

#[tokio::test]
async fn an_overpayment_is_refused_up_front_and_a_racing_one_is_a_refundable_credit() {
    let app = rest_app().await;
    let (client, _) = rest_partner(
        &app,
        SCOPES,
        lendhub_domain::partner::project::Tier::Platform,
    )
    .await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    // Early in a day, so no day's interest falls between the figures read.
    let now = lendhub_domain::clock::Clock::now(app.clock.as_ref());
    let since_midnight = now - now.replace_time(time::Time::MIDNIGHT);
    app.advance(Duration::days(1) - since_midnight + Duration::minutes(10));
    let account = crate::rest_accounts::fund(&app, &key).await;
    let balance = || async {
        rest_get(
            &app,
            &format!("{TEST}/accounts/{account}/balance"),
            Some(&key),
        )
        .await
        .body
    };
    let before = balance().await;
    let payoff = before["payoff_pence"].as_i64().unwrap();
    assert_eq!(before["credit_pence"], 0, "{before}");

    // More than the payoff, or more than any payment may be: refused.
    let r = link(
        &app,
        &key,
        "over-payoff",
        json!({"account_id": account, "amount_pence": 5_000_000}),
    )
    .await;
    assert_hub_error(&r, 409, "conflict");
    for (n, huge) in [json!(i64::MAX), json!(u64::MAX), json!(50_000_001)]
        .into_iter()
        .enumerate()
    {
        let r = link(
            &app,
            &key,
            &format!("huge-amount-{n}"),
            json!({"account_id": account, "amount_pence": huge}),
        )
        .await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(
            r.body["error"]["detail"][0],
            json!({"field": "amount_pence", "reason": "max_value", "bound": 50_000_000}),
            "{}",
            r.body
        );
    }

    // Two links, each within the payoff, both paid: the second overpays.
    let share = payoff * 6 / 10;
    let mut paid = Vec::new();
    for n in 0..2 {
        let r = link(
            &app,
            &key,
            &format!("race-link-{n}"),
            json!({"account_id": account, "amount_pence": share}),
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.body);
        pay_page(&app, r.body["url"].as_str().unwrap(), Some("strong")).await;
        paid.push(r.body["id"].as_str().unwrap().to_owned());
    }
    app.advance(Duration::minutes(2));
    for id in &paid {
        eventually_async("the payment settles", || async {
            payment(&app, &key, id).await["status"] == "paid"
        })
        .await;
    }
    let after = balance().await;
    assert_eq!(after["payoff_pence"], 0, "{after}");
    assert_eq!(
        after["credit_pence"],
        2 * share - payoff,
        "every penny paid is on the account: {after}"
    );
    // Settled: at once by the later payment's own commit when the two
    // settled one after the other, or by the review that follows each
    // settlement when they settled at the same moment.
    eventually_async("the account settles", || async {
        rest_get(&app, &format!("{TEST}/accounts/{account}"), Some(&key))
            .await
            .body["status"]
            == "settled"
    })
    .await;
    // The ledger sums to what was paid less what was drawn.
    let t = rest_get(
        &app,
        &format!("{TEST}/accounts/{account}/transactions?limit=100"),
        Some(&key),
    )
    .await;
    let sum: i64 = t.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["amount_pence"].as_i64().unwrap())
        .sum();
    assert_eq!(sum, 2 * share - 1_000_000);
    // The credit was announced: the last account event shows it.
    let events = rest_get(&app, &format!("{TEST}/events?limit=100"), Some(&key)).await;
    let last = events.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["data"]["object"]["id"] == account.as_str())
        .unwrap()
        .clone();
    assert_eq!(
        last["data"]["object"]["balance"]["credit_pence"],
        2 * share - payoff,
        "{last}"
    );

    // A settled account takes no more links, not even £1.
    let r = link(
        &app,
        &key,
        "after-settled",
        json!({"account_id": account, "amount_pence": 100}),
    )
    .await;
    assert_hub_error(&r, 409, "conflict");

    // Refunding the overpaying payment hands the credit back; what it paid
    // beyond the credit is owed again and the account reopens.
    let (keys, kid) = crate::rest_webhooks::request_key(&app, &client).await;
    let r = refund_payment(
        &app,
        &key,
        Some((&keys, kid.as_str())),
        paid[1].clone(),
        "refund-over",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // Owed again once the rail has paid the money back.
    eventually_async("the refund is paid back", || async {
        payment(&app, &key, &paid[1]).await["refund"]["status"] == "paid"
    })
    .await;
    let refunded = balance().await;
    assert_eq!(refunded["credit_pence"], 0, "{refunded}");
    assert_eq!(refunded["payoff_pence"], payoff - share, "{refunded}");
    let reopened = rest_get(&app, &format!("{TEST}/accounts/{account}"), Some(&key)).await;
    assert_eq!(reopened.body["status"], "performing", "{}", reopened.body);
}
