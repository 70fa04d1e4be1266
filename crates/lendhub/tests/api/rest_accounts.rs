//! Servicing accounts (issue #16, first slice): a funded loan's account with
//! its balance derived from the ledger on the environment's clock, its
//! schedule, its ledger a page at a time, and the list.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};
use time::Duration;

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::*;

use crate::rest_tier::rest_post as post;

const SCOPES: &str = "applications.read applications.write decisions.read accounts.read";
const TEST: &str = "/sandbox/v1";

/// A test key and a funded loan of £10,000 over 24 months: (key, account id).
async fn funded(app: &App) -> (String, String) {
    funded_with(app, SCOPES).await
}

/// `funded`, for a partner holding `scopes`.
pub async fn funded_with(app: &App, scopes: &str) -> (String, String) {
    funded_at(app, scopes, Tier::Platform).await
}

/// `funded_with`, for a partner at `tier`.
pub async fn funded_at(app: &App, scopes: &str, tier: Tier) -> (String, String) {
    let (client, _) = rest_partner(app, scopes, tier).await;
    let key = api_key(app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let account = fund(app, &key).await;
    (key, account)
}

/// Another funded loan of the partner holding `key`: its account id.
pub async fn fund(app: &App, key: &str) -> String {
    fund_over(app, key, 24).await
}

/// `fund`, of £10,000 over `term_months`.
pub async fn fund_over(app: &App, key: &str, term_months: u32) -> String {
    fund_as(app, key, term_months, None).await
}

/// `fund_over`, for an application introduced through a sub-account.
pub async fn fund_as(
    app: &App,
    key: &str,
    term_months: u32,
    introduction_id: Option<&str>,
) -> String {
    app.advance(Duration::seconds(1)); // the create sub-limit
    let mut body = json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
        "term_months": term_months, "applicant": {"email": "ada@example.com"}, "reference": "ACC-1"});
    if let Some(sub) = introduction_id {
        body["introduction_id"] = json!(sub);
    }
    let r = post(app, &format!("{TEST}/applications"), key, body).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let r = post(
        app,
        &format!("{TEST}/applications/{id}/submit"),
        key,
        json!({"consents": {"credit_search": true, "open_banking": true, "terms": true}, "bank": "test_bank_strong"}),
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
    app.advance(Duration::minutes(6));
    let mut account = Value::Null;
    for _ in 0..200 {
        let r = rest_get(app, &format!("{TEST}/applications/{id}"), Some(key)).await;
        account = r.body["account_id"].clone();
        if account.is_string() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    account.as_str().expect("funded").to_owned()
}

#[tokio::test]
async fn a_funded_loans_account_shows_its_balance_schedule_and_ledger() {
    let app = rest_app().await;
    let (key, id) = funded(&app).await;
    let get = |path: String| {
        let (app, key) = (&app, &key);
        async move { rest_get(app, &path, Some(key)).await }
    };

    let r = get(format!("{TEST}/accounts/{id}")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let a = &r.body;
    assert_eq!(a["object"], "account");
    assert_eq!(a["status"], "performing");
    assert_eq!(a["product"], "business_term_loan");
    assert_eq!(
        a["borrower"],
        json!({"company_number": "00000401", "company_name": "Healthy Widgets Ltd"})
    );
    assert_eq!(a["principal_pence"], 1_000_000);
    assert_eq!(a["term_months"], 24);
    assert_eq!(a["reference"], "ACC-1");
    assert_eq!(a["livemode"], false);
    assert!(a["sub_account_id"].is_null());
    assert_eq!(
        a["balance"],
        json!({"principal_outstanding_pence": 1_000_000, "interest_accrued_pence": 0,
               "arrears_pence": 0, "payoff_pence": 1_000_000, "credit_pence": 0})
    );
    let schedule = a["schedule"].as_array().unwrap();
    assert_eq!(schedule.len(), 24);
    let total: i64 = schedule
        .iter()
        .map(|i| i["amount_pence"].as_i64().unwrap())
        .sum();
    assert_eq!(total, a["total_repayable_pence"].as_i64().unwrap());
    assert_eq!(schedule[0]["amount_pence"], a["monthly_repayment_pence"]);

    // Interest accrues by the day on the environment's clock.
    app.advance(Duration::days(10));
    let b = get(format!("{TEST}/accounts/{id}/balance")).await;
    assert_eq!(b.status, 200, "{}", b.body);
    assert_eq!(b.body["object"], "balance");
    assert_eq!(b.body["account_id"], id.as_str());
    let interest = b.body["interest_accrued_pence"].as_i64().unwrap();
    assert!(
        interest > 0 && interest < 10_000,
        "ten days on £10,000: {interest}"
    );
    assert_eq!(b.body["payoff_pence"], 1_000_000 + interest);
    assert_eq!(b.body["arrears_pence"], 0);

    // The first instalment falls due a month after the drawdown, unpaid.
    app.advance(Duration::days(25));
    let b = get(format!("{TEST}/accounts/{id}/balance")).await;
    assert_eq!(b.body["arrears_pence"], schedule[0]["amount_pence"]);

    // The ledger: the drawdown, negative, by Faster Payments.
    let t = get(format!("{TEST}/accounts/{id}/transactions")).await;
    assert_eq!(t.status, 200, "{}", t.body);
    assert_eq!(t.body["object"], "list");
    assert_eq!(t.body["has_more"], false);
    let entries = t.body["data"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    let drawdown = &entries[0];
    assert!(drawdown["id"].as_str().unwrap().starts_with("txn_"));
    assert_eq!(drawdown["type"], "drawdown");
    assert_eq!(drawdown["amount_pence"], -1_000_000);
    assert_eq!(drawdown["account_id"], id.as_str());
    assert!(drawdown["payment_id"].is_null());
    // Named by the payout rail's id for the payment (a GUID).
    let description = drawdown["description"].as_str().unwrap();
    let rail_id = description.strip_prefix("Faster Payments ").unwrap();
    assert_eq!(rail_id.len(), 36, "{description}");

    // The list, by status.
    let l = get(format!("{TEST}/accounts")).await;
    assert_eq!(l.body["data"].as_array().unwrap().len(), 1, "{}", l.body);
    assert_eq!(l.body["data"][0]["id"], id.as_str());
    assert_eq!(
        l.body["data"][0]["balance"]["arrears_pence"],
        schedule[0]["amount_pence"]
    );
    // The unpaid instalment put the account in arrears on the clock.
    eventually_async("the account falls into arrears", || async {
        get(format!("{TEST}/accounts/{id}")).await.body["status"] == "in_arrears"
    })
    .await;
    let l = get(format!("{TEST}/accounts?status=in_arrears")).await;
    assert_eq!(l.body["data"].as_array().unwrap().len(), 1);
    let l = get(format!("{TEST}/accounts?status=performing")).await;
    assert_eq!(l.body["data"], json!([]));
    let l = get(format!("{TEST}/accounts?status=settled")).await;
    assert_eq!(l.body["data"], json!([]));
    assert_hub_error(
        &get(format!("{TEST}/accounts?status=paid")).await,
        422,
        "validation_failed",
    );
    assert_hub_error(
        &get(format!(
            "{TEST}/accounts?starting_after=app_01KQ3V1Y2C8WZ3R5T6Y7U8I9O0"
        ))
        .await,
        404,
        "not_found",
    );
    assert_hub_error(
        &get(format!(
            "{TEST}/accounts/{id}/transactions?starting_after=txn_01KQ3V1Y2C8WZ3R5T6Y7U8I9O0"
        ))
        .await,
        404,
        "not_found",
    );

    // A cursor must be an entry of this account, not of another of yours.
    let other = fund(&app, &key).await;
    let theirs = get(format!("{TEST}/accounts/{other}/transactions")).await;
    let their_entry = theirs.body["data"][0]["id"].as_str().unwrap().to_owned();
    assert_hub_error(
        &get(format!(
            "{TEST}/accounts/{id}/transactions?starting_after={their_entry}"
        ))
        .await,
        404,
        "not_found",
    );
    let l = get(format!("{TEST}/accounts?limit=1")).await;
    assert_eq!(l.body["data"][0]["id"], other.as_str(), "newest first");
    assert_eq!(l.body["has_more"], true);

    // Another environment, an unknown id, too narrow a key.
    assert_hub_error(
        &get(format!("/partner/v1/accounts/{id}")).await,
        401,
        "invalid_api_key",
    );
    assert_hub_error(
        &get(format!("{TEST}/accounts/acc_01KQ3V1Y2C8WZ3R5T6Y7U8I9O0")).await,
        404,
        "not_found",
    );
    assert_hub_error(
        &get(format!(
            "{TEST}/accounts/acc_01KQ3V1Y2C8WZ3R5T6Y7U8I9O0/transactions"
        ))
        .await,
        404,
        "not_found",
    );
    let (narrow, _) = rest_partner(&app, "applications.read", Tier::Platform).await;
    let narrow = api_key(&app, &narrow, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = rest_get(&app, &format!("{TEST}/accounts/{id}"), Some(&narrow)).await;
    assert_hub_error(&r, 403, "insufficient_scope");
}

/// A person's access token from lendhub's identity provider with
/// `accounts.read` reads their own company's accounts, whichever partner
/// introduced them, and nothing else; without the scope, 403.
#[tokio::test]
async fn a_persons_token_reads_only_their_own_companys_accounts() {
    use crate::support::oidc::{Authorize, Browser, code, exchange, person_of, pkce, rp};
    let app = rest_app().await;
    let (key, mine) = funded(&app).await;
    // Another partner's loan to the same company.
    let (_, also_mine) = funded(&app).await;
    let director = person_of(&app, "00000401", "Healthy Widgets Ltd").await;
    let stranger = person_of(&app, "01234567", "Analytical Engines Ltd").await;
    let client = rp(&app, false).await;
    let token_for = |who: &crate::support::oidc::Person, scope: &'static str| {
        let (app, client) = (&app, &client);
        let who = who.clone();
        async move {
            let pkce = pkce();
            let mut req = Authorize::new(client, &pkce);
            req.scope = scope;
            let code = code(&Browser::new(app), &req, &who).await;
            let t = exchange(app, client, &code, &pkce.verifier).await;
            assert_eq!(t.status, 200, "{}", t.body);
            t.body["access_token"].as_str().unwrap().to_owned()
        }
    };
    let token = token_for(&director, "openid business accounts.read").await;

    let listed = rest_get(&app, &format!("{TEST}/accounts"), Some(&token)).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    let ids: Vec<&str> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        vec![also_mine.as_str(), mine.as_str()],
        "both partners' loans"
    );
    let one = rest_get(&app, &format!("{TEST}/accounts/{mine}"), Some(&token)).await;
    assert_eq!(one.status, 200, "{}", one.body);
    assert_eq!(one.body["borrower"]["company_number"], "00000401");
    assert_eq!(
        one.body["balance"],
        rest_get(&app, &format!("{TEST}/accounts/{mine}"), Some(&key))
            .await
            .body["balance"],
        "the same balance the partner sees"
    );
    let balance = rest_get(
        &app,
        &format!("{TEST}/accounts/{also_mine}/balance"),
        Some(&token),
    )
    .await;
    assert_eq!(balance.status, 200, "{}", balance.body);
    let ledger = rest_get(
        &app,
        &format!("{TEST}/accounts/{also_mine}/transactions"),
        Some(&token),
    )
    .await;
    assert_eq!(ledger.status, 200, "{}", ledger.body);
    assert_eq!(ledger.body["data"][0]["type"], "drawdown");
    // Which partner's sub-account introduced a loan is the partners' matter.
    let r = rest_get(
        &app,
        &format!("{TEST}/accounts?sub_account_id=sub_01KQ3V1Y2C8WZ3R5T6Y7V8W9X0"),
        Some(&token),
    )
    .await;
    assert_hub_error(&r, 422, "validation_failed");
    assert_eq!(r.body["error"]["detail"][0]["reason"], "partners_only");
    // The live environment holds none of theirs.
    let live = rest_get(&app, "/partner/v1/accounts", Some(&token)).await;
    assert_eq!(live.status, 200, "{}", live.body);
    assert_eq!(live.body["data"], json!([]));
    assert_eq!(
        rest_get(&app, &format!("/partner/v1/accounts/{mine}"), Some(&token))
            .await
            .status,
        404
    );

    // Someone else's company: nothing, and 404 for the account itself.
    let theirs = token_for(&stranger, "openid business accounts.read").await;
    let listed = rest_get(&app, &format!("{TEST}/accounts"), Some(&theirs)).await;
    assert_eq!(listed.body["data"], json!([]), "{}", listed.body);
    let r = rest_get(&app, &format!("{TEST}/accounts/{mine}"), Some(&theirs)).await;
    assert_hub_error(&r, 404, "not_found");
    let r = rest_get(
        &app,
        &format!("{TEST}/accounts/{mine}/transactions"),
        Some(&theirs),
    )
    .await;
    assert_hub_error(&r, 404, "not_found");

    // Without accounts.read: 403; a made-up token: 401.
    let narrow = token_for(&director, "openid business").await;
    let r = rest_get(&app, &format!("{TEST}/accounts"), Some(&narrow)).await;
    assert_hub_error(&r, 403, "insufficient_scope");
    let made_up = narrow.chars().rev().collect::<String>();
    let r = rest_get(&app, &format!("{TEST}/accounts"), Some(&made_up)).await;
    assert_eq!(r.status, 401, "{}", r.body);
    // A person's token reads accounts only: not payments, not applications.
    let r = rest_get(&app, &format!("{TEST}/payments"), Some(&token)).await;
    assert_eq!(r.status, 401, "{}", r.body);
}
