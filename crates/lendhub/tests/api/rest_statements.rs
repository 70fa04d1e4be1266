//! Partner economics (issue #17): a month closes by itself on the
//! partner's clock — drafted when it ends (`invoice.draft`), finalized on
//! the 2nd working day of the next month (`invoice.finalized`) — with the
//! integration fee re-rated when a tier is crossed mid-month and nothing
//! billed for declined, withdrawn or failed loans; a revenue-share partner
//! is paid its share and its sub-account a payout instead. Read through
//! the API, printed as an invoice, and closed again by the operator's CLI
//! with the same result.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};
use time::Duration;

use crate::partner::assert_hub_error;
use crate::rest_tier::{api_key, rest_app, rest_partner, rest_post as post};
use crate::support::process::{cli, cli_refused};
use crate::support::*;

const SCOPES: &str = "applications.read applications.write decisions.read accounts.read \
                      accounts.manage events.read billing.read";
const TEST: &str = "/sandbox/v1";

pub(crate) async fn partner(app: &App) -> (String, String) {
    let (client, _) = rest_partner(app, SCOPES, Tier::Platform).await;
    let key = api_key(app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    (client, key)
}

/// `GET path`, waiting out the project's rate limit: these tests poll for
/// the rail's answers, and must not fail for polling fast.
async fn get(app: &App, path: &str, key: Option<&str>) -> Reply {
    loop {
        let r = crate::rest_tier::rest_get(app, path, key).await;
        if r.status != 429 {
            return r;
        }
        let wait = r.body["error"]["retry_after_ms"].as_u64().unwrap_or(50);
        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
    }
}

/// Moves the partner's test clock to `to` (RFC 3339), in hops of 390 days
/// where it is further than one advance may go (400 days).
pub(crate) async fn clock_to(app: &App, key: &str, to: &str) {
    let path = format!("{TEST}/test_helpers/clock/advance");
    loop {
        let r = post(app, &path, key, json!({ "to": to })).await;
        if r.body["error"]["code"] != "test_clock_advance_too_large" {
            assert_eq!(r.status, 200, "{}", r.body);
            return;
        }
        let hop = post(app, &path, key, json!({ "seconds": 390 * 86_400 })).await;
        assert_eq!(hop.status, 200, "{}", hop.body);
    }
}

/// An application of `company` for `pounds`, submitted through `bank`:
/// its id and status.
async fn decided(
    app: &App,
    key: &str,
    company: &str,
    pounds: i64,
    bank: &str,
    extra: Value,
) -> (String, String) {
    app.advance(Duration::seconds(1)); // the create sub-limit
    let mut body = json!({"business": {"company_number": company}, "amount_pence": pounds * 100,
        "term_months": 36, "applicant": {"email": "ada@example.com"}});
    for (field, value) in extra.as_object().into_iter().flatten() {
        body[field] = value.clone();
    }
    let r = post(app, &format!("{TEST}/applications"), key, body).await;
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
    (id, r.body["status"].as_str().unwrap().to_owned())
}

/// Accepts the offer and waits for the disbursement's outcome: the
/// account's id, or `None` when the payment was rejected.
async fn accepted(app: &App, key: &str, id: &str) -> Option<String> {
    let r = post(
        app,
        &format!("{TEST}/applications/{id}/accept"),
        key,
        json!({"signed_by": "Ada Lovelace", "accept_terms": true}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    app.advance(Duration::minutes(6));
    for _ in 0..200 {
        let r = get(app, &format!("{TEST}/applications/{id}"), Some(key)).await;
        if r.status == 429 {
            let wait = r.body["error"]["retry_after_ms"].as_u64().unwrap_or(100);
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            continue;
        }
        if let Some(account) = r.body["account_id"].as_str() {
            return Some(account.to_owned());
        }
        if r.body["funding_failure_reason"].is_string() {
            return None;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the disbursement of {id} never settled nor failed");
}

pub(crate) async fn funded(app: &App, key: &str, pounds: i64, extra: Value) -> String {
    let (id, status) = decided(app, key, "00000401", pounds, "test_bank_strong", extra).await;
    assert_eq!(status, "approved");
    accepted(app, key, &id).await.expect("funded")
}

pub(crate) async fn statement_of(app: &App, key: &str, period: &str, status: &str) -> Value {
    statement_in(app, key, period, &[status]).await
}

/// The statement of `period` once it is in one of `statuses`.
pub(crate) async fn statement_in(app: &App, key: &str, period: &str, statuses: &[&str]) -> Value {
    let mut last = Value::Null;
    for _ in 0..200 {
        let r = get(
            app,
            &format!("{TEST}/statements?period={period}"),
            Some(key),
        )
        .await;
        // Polling is a client like any: over the rate limit, it waits.
        if r.status == 429 {
            let wait = r.body["error"]["retry_after_ms"].as_u64().unwrap_or(100);
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            continue;
        }
        assert_eq!(r.status, 200, "{}", r.body);
        last = r.body["data"][0].clone();
        if statuses.iter().any(|s| last["status"] == *s) {
            return last;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no {statuses:?} statement for {period}: {last}");
}

async fn events_of(app: &App, key: &str, kind: &str) -> Vec<Value> {
    let r = get(
        app,
        &format!("{TEST}/events?type={kind}&limit=100"),
        Some(key),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["data"].as_array().unwrap().clone()
}

fn close_lines(app: &App, period: &str) -> Vec<Value> {
    cli(&app._site, &["billing", "close", "--period", period])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The year these tests' months fall in: the next whose 4 January is
/// still ahead, since a test clock only moves forward (2027 until then).
pub(crate) fn year_ahead() -> i32 {
    let today = time::OffsetDateTime::now_utc().date();
    let fourth = time::Date::from_calendar_date(today.year(), time::Month::January, 4).unwrap();
    if today < fourth {
        today.year()
    } else {
        today.year() + 1
    }
}

/// A month's invoice date, by the bundled list of England and Wales bank
/// holidays the server uses too. Where a year's dates are known by heart,
/// the tests also state them.
pub(crate) fn invoice_date(period: &str) -> String {
    let days = lendhub_domain::working_days::WorkingDays::bundled();
    lendhub_domain::billing::statement::Period::parse(period)
        .unwrap()
        .invoice_date(&days)
        .to_string()
}

#[tokio::test]
async fn a_month_is_drafted_when_it_ends_and_finalized_on_its_invoice_date() {
    let app = rest_app().await;
    let (client, key) = partner(&app).await;
    let year = year_ahead();
    let (january, february) = (format!("{year}-01"), format!("{year}-02"));
    clock_to(&app, &key, &format!("{year}-01-04T09:00:00Z")).await;

    // Three loans of 250 k: the third takes the trailing volume past 500 k.
    let mut accounts = Vec::new();
    for n in 0..3 {
        let extra = json!({ "partner_ref": format!("merchant:{n}") });
        accounts.push(funded(&app, &key, 250_000, extra).await);
    }
    let account = get(
        &app,
        &format!("{TEST}/accounts/{}", accounts[0]),
        Some(&key),
    )
    .await;
    assert_eq!(
        account.body["partner_ref"], "merchant:0",
        "frozen on the loan"
    );
    for (n, (partner_ref, reason)) in [("has space", "pattern"), (&*"x".repeat(65), "max_length")]
        .into_iter()
        .enumerate()
    {
        app.advance(Duration::seconds(1));
        let r = post(
            &app,
            &format!("{TEST}/applications"),
            &key,
            json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
                   "term_months": 12, "applicant": {"email": "ada@example.com"},
                   "partner_ref": partner_ref, "reference": format!("bad-{n}")}),
        )
        .await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["detail"][0]["field"], "partner_ref");
        assert_eq!(r.body["error"]["detail"][0]["reason"], reason);
    }
    // Nothing billed for a decline, a withdrawal, a failed disbursement.
    let (_, status) = decided(
        &app,
        &key,
        "00000403",
        10_000,
        "test_bank_strong",
        json!({}),
    )
    .await;
    assert_eq!(status, "declined");
    app.advance(Duration::seconds(1));
    let r = post(
        &app,
        &format!("{TEST}/applications"),
        &key,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 12, "applicant": {"email": "ada@example.com"}}),
    )
    .await;
    let withdrawn = r.body["id"].as_str().unwrap().to_owned();
    let r = post(
        &app,
        &format!("{TEST}/applications/{withdrawn}/withdraw"),
        &key,
        json!({}),
    )
    .await;
    assert_eq!(r.body["status"], "withdrawn", "{}", r.body);
    let (closed_bank, _) = decided(
        &app,
        &key,
        "00000401",
        10_000,
        "test_bank_closed",
        json!({}),
    )
    .await;
    assert_eq!(accepted(&app, &key, &closed_bank).await, None, "rejected");

    // Nothing until the month is over.
    let none = get(&app, &format!("{TEST}/statements"), Some(&key)).await;
    assert_eq!(none.body["data"], json!([]), "{}", none.body);
    assert_eq!(close_lines(&app, &january)[0]["result"], "not_over");

    // Drafted once it ends on the partner's clock.
    clock_to(&app, &key, &format!("{february}-01T08:00:00Z")).await;
    let draft = statement_of(&app, &key, &january, "draft").await;
    assert_eq!(draft["object"], "partner_statement");
    assert!(draft["id"].as_str().unwrap().starts_with("pst_"));
    assert_eq!(
        draft["currency"], "GBP",
        "the seed's spelling, as on payments"
    );
    assert_eq!(draft["model"], "integration_fee");
    assert_eq!(draft["tier"], "up_to_2m", "re-rated: 750 k crossed 500 k");
    assert_eq!(draft["funded_originations"], 3);
    assert_eq!(draft["funded_volume_pence"], 75_000_000);
    assert_eq!(draft["fee_per_origination_pence"], 3_200);
    assert_eq!(
        draft["payable_pence"], 9_600,
        "three at 32 GBP, none for the rest"
    );
    assert_eq!(draft["payable_by"], "partner");
    assert_eq!(draft["share_rate"], 0.0);
    assert!(draft["net_margin_pence"].as_i64().unwrap() > 0);
    let invoiced = invoice_date(&january);
    if year == 2027 {
        assert_eq!(invoiced, "2027-02-02", "the 2nd working day");
    }
    assert_eq!(draft["invoice_date"], invoiced.as_str());
    assert_eq!(draft["pay_date"], invoiced.as_str());
    assert_eq!(draft["livemode"], false);
    let id = draft["id"].as_str().unwrap().to_owned();
    let drafts = events_of(&app, &key, "invoice.draft").await;
    assert_eq!(drafts.len(), 1);
    assert_eq!(drafts[0]["data"]["object"]["id"], id.as_str());

    // The printable invoice.
    let page = app
        .http
        .get(format!("{}{TEST}/statements/{id}/invoice", app.hub))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text().await.unwrap();
    for text in [
        "Invoice",
        "DRAFT",
        "£96.00",
        "exclusive of VAT",
        &january,
        "merchant:2",
    ] {
        assert!(html.contains(text), "{text} in {html}");
    }
    for account in &accounts {
        assert!(html.contains(account.as_str()), "{account}");
    }

    // The operator's close of a draft whose facts have not moved: the same.
    let again = close_lines(&app, &january);
    assert_eq!(again[0]["result"], "unchanged", "{again:?}");
    assert_eq!(again[0]["partner"]["client_id"], client.as_str());

    // Finalized on the invoice date, and never changed after.
    clock_to(&app, &key, &format!("{invoiced}T08:00:00Z")).await;
    let finalized = statement_of(&app, &key, &january, "finalized").await;
    let mut expected = draft.clone();
    expected["status"] = json!("finalized");
    assert_eq!(finalized, expected, "only its status moved");
    let finals = events_of(&app, &key, "invoice.finalized").await;
    assert_eq!(finals.len(), 1);
    assert_eq!(finals[0]["data"]["object"]["status"], "finalized");
    let before = get(&app, &format!("{TEST}/statements/{id}"), Some(&key)).await;
    let closed = close_lines(&app, &january);
    assert_eq!(closed[0]["result"], "unchanged", "{closed:?}");
    let after = get(&app, &format!("{TEST}/statements/{id}"), Some(&key)).await;
    assert_eq!(
        before.body.to_string(),
        after.body.to_string(),
        "byte for byte"
    );
    assert_eq!(events_of(&app, &key, "invoice.draft").await.len(), 1);

    // A correction is a new line on the next statement, never a change.
    let site = &app._site;
    fn adjust<'a>(client: &'a str, corrects: &'a str) -> [&'a str; 12] {
        [
            "billing",
            "adjust",
            "--client-id",
            client,
            "--environment",
            "test",
            "--corrects",
            corrects,
            "--amount-pence",
            "-3200",
            "--reason",
            "one fee refunded",
        ]
    }
    let refused =
        crate::support::process::cli_refused(site, &adjust(&client, &format!("{}-12", year - 1)));
    assert!(refused.contains("no test statement"), "{refused}");
    let made: Value = serde_json::from_str(&cli(site, &adjust(&client, &january))).unwrap();
    assert_eq!(made["applies_to"], february.as_str());
    clock_to(
        &app,
        &key,
        &format!("{}T08:00:00Z", invoice_date(&february)),
    )
    .await;
    let february = statement_of(&app, &key, &february, "finalized").await;
    assert_eq!(february["funded_originations"], 0);
    assert_eq!(february["adjustments"][0]["corrects"], january.as_str());
    assert_eq!(february["adjustments"][0]["amount_pence"], -3_200);
    assert_eq!(
        (&february["payable_pence"], &february["payable_by"]),
        (&json!(3_200), &json!("lender")),
        "the credit is the lender's to pay"
    );
    let january = get(&app, &format!("{TEST}/statements/{id}"), Some(&key)).await;
    assert_eq!(
        january.body.to_string(),
        after.body.to_string(),
        "unchanged"
    );

    // Yours only, with billing.read.
    let (_, other) = partner(&app).await;
    assert_hub_error(
        &get(&app, &format!("{TEST}/statements/{id}"), Some(&other)).await,
        404,
        "not_found",
    );
    let (reader_client, _) = rest_partner(&app, "applications.read", Tier::Platform).await;
    let reader = api_key(&app, &reader_client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_hub_error(
        &get(&app, &format!("{TEST}/statements"), Some(&reader)).await,
        403,
        "insufficient_scope",
    );
    let bad = get(
        &app,
        &format!("{TEST}/statements?period=2027-13"),
        Some(&key),
    )
    .await;
    assert_hub_error(&bad, 422, "validation_failed");
    assert_eq!(bad.body["error"]["detail"][0]["field"], "period");
}

/// `sub_id`'s only payout once it is `status`.
async fn payout_ended(app: &App, key: &str, sub_id: &str, status: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..400 {
        let listed = get(
            app,
            &format!("{TEST}/payouts?sub_account_id={sub_id}"),
            Some(key),
        )
        .await;
        assert_eq!(listed.status, 200, "{}", listed.body);
        last = listed.body["data"][0].clone();
        if last["status"] == status {
            return last;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the payout never became {status}: {last}");
}

/// The partner's own remittance for `period` (the payout with no
/// sub-account), once it is `status`.
async fn remittance_ended(app: &App, key: &str, period: &str, status: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..400 {
        let listed = get(app, &format!("{TEST}/payouts"), Some(key)).await;
        assert_eq!(listed.status, 200, "{}", listed.body);
        let own: Vec<&Value> = listed.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["sub_account_id"].is_null() && p["period"] == period)
            .collect();
        assert!(own.len() <= 1, "one remittance a month: {own:?}");
        if let Some(p) = own.first() {
            last = (*p).clone();
            if last["status"] == status {
                return last;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the partner's remittance never became {status}: {last}");
}

/// The lender's operator records where `client`'s own (test) remittances
/// are paid: the CLI's JSON line.
fn remit_to(app: &App, client: &str, account_number: &str) -> Value {
    serde_json::from_str(&cli(
        &app._site,
        &[
            "billing",
            "payout-account",
            "--client-id",
            client,
            "--environment",
            "test",
            "--name",
            "Partner Ltd",
            "--sort-code",
            "04-00-04",
            "--account-number",
            account_number,
        ],
    ))
    .unwrap()
}

/// A ledger account's balance in the trial balance (0 if not listed).
fn ledger_balance(app: &App, account: &str) -> i64 {
    let trial: Value =
        serde_json::from_str(&cli(&app._site, &["ledger", "trial-balance", "--json"])).unwrap();
    assert_eq!(trial["total_debits_pence"], trial["total_credits_pence"]);
    trial["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["account"] == account)
        .map_or(0, |a| a["balance_pence"].as_i64().unwrap())
}

/// A partner agreed on the revenue share: its client id and test key.
async fn sharing_partner(app: &App) -> (String, String) {
    let (client, key) = partner(app).await;
    cli(
        &app._site,
        &[
            "billing",
            "terms",
            "set",
            &client,
            "--model",
            "revenue-share",
        ],
    );
    (client, key)
}

/// A payout the receiving bank refuses (the sub-account's account is
/// closed), one to a sub-account that named no account, and the partner's
/// own remittance when the lender holds no account for it, each end
/// `failed` with their reason and `payout.failed`, and the share stays
/// owed on the ledger (revenue share payable); an account that fails the
/// modulus check is refused when it is given. A new payout account (`POST
/// /sub-accounts/{id}`, or the operator's `billing payout-account` for the
/// partner) issues each again, and each is paid.
#[tokio::test]
async fn a_payout_the_bank_refuses_or_that_has_nowhere_to_go_fails_stays_owed_and_is_paid_to_a_new_account()
 {
    let app = rest_app().await;
    let (client, key) = sharing_partner(&app).await;
    let sub = |n: &'static str, account: Value| {
        let (app, key) = (&app, &key);
        async move {
            let mut body = json!({"name": format!("Broker {n}"), "revenue_share_bps": 500});
            if !account.is_null() {
                body["payout_account"] = account;
            }
            reply(
                app.http
                    .post(format!("{}{TEST}/sub-accounts", app.hub))
                    .bearer_auth(key)
                    .header("idempotency-key", format!("sub-broker-{n}"))
                    .json(&body)
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    let typo = sub(
        "typo",
        json!({"name": "Typo Ltd", "sort_code": "040004", "account_number": "10000011"}),
    )
    .await;
    assert_hub_error(&typo, 422, "validation_failed");
    assert_eq!(
        typo.body["error"]["detail"][0],
        json!({"field": "payout_account.account_number", "reason": "modulus_check_failed"})
    );
    let closed = sub(
        "closed",
        json!({"name": "Closed Ltd", "sort_code": "040004", "account_number": "99999997"}),
    )
    .await;
    assert_eq!(closed.status, 201, "{}", closed.body);
    let closed = closed.body["id"].as_str().unwrap().to_owned();
    let nowhere = sub("nowhere", Value::Null).await;
    assert_eq!(nowhere.body["payout_account"], Value::Null);
    let nowhere = nowhere.body["id"].as_str().unwrap().to_owned();

    let year = year_ahead();
    let march = format!("{year}-03");
    clock_to(&app, &key, &format!("{march}-01T09:00:00Z")).await;
    funded(&app, &key, 200_000, json!({ "introduction_id": closed })).await;
    funded(&app, &key, 200_000, json!({ "introduction_id": nowhere })).await;
    let payable_before = ledger_balance(&app, "lender:revenue_share_payable");
    let after = time::Date::parse(
        &invoice_date(&march),
        time::macros::format_description!("[year]-[month]-[day]"),
    )
    .unwrap()
    .next_day()
    .unwrap();
    clock_to(&app, &key, &format!("{after}T08:00:00Z")).await;
    statement_of(&app, &key, &march, "finalized").await;

    let refused = payout_ended(&app, &key, &closed, "failed").await;
    assert_eq!(refused["failure_reason"], "account_closed", "{refused}");
    assert_eq!(refused["paid_at"], Value::Null);
    let unsent = payout_ended(&app, &key, &nowhere, "failed").await;
    assert_eq!(unsent["failure_reason"], "no_payout_account", "{unsent}");
    let own = remittance_ended(&app, &key, &march, "failed").await;
    assert_eq!(own["failure_reason"], "no_payout_account", "{own}");
    let statement = statement_of(&app, &key, &march, "finalized").await;
    assert_eq!(statement["payable_by"], "lender");
    assert_eq!(own["gross_pence"], statement["payable_pence"]);
    assert_eq!(own["introductions"], 2);
    let failed = events_of(&app, &key, "payout.failed").await;
    assert_eq!(failed.len(), 3);
    assert!(events_of(&app, &key, "payout.paid").await.is_empty());
    let owed = [&refused, &unsent, &own]
        .iter()
        .map(|p| p["gross_pence"].as_i64().unwrap())
        .sum::<i64>();
    assert!(owed > own["gross_pence"].as_i64().unwrap());
    assert_eq!(
        ledger_balance(&app, "lender:revenue_share_payable") - payable_before,
        owed,
        "no payout left: every share is still owed"
    );

    // A new payout account issues each failed payout again, paid at once.
    let change = |sub_id: &str, body: Value| {
        let path = format!("{TEST}/sub-accounts/{sub_id}");
        let (app, key) = (&app, &key);
        async move { crate::rest_tier::rest_post(app, &path, key, body).await }
    };
    let r = change(&closed, json!({})).await;
    assert_hub_error(&r, 422, "validation_failed");
    assert_eq!(
        r.body["error"]["detail"][0],
        json!({"field": "payout_account", "reason": "required"})
    );
    for sub_id in [&closed, &nowhere] {
        let account =
            json!({"name": "Broker Ltd", "sort_code": "04-00-04", "account_number": "10000010"});
        let r = change(sub_id, json!({ "payout_account": account })).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.body["payout_account"]["last4"], "0010", "{}", r.body);
    }
    for sub_id in [&closed, &nowhere] {
        let paid = payout_ended(&app, &key, sub_id, "paid").await;
        assert!(paid["paid_at"].is_string(), "{paid}");
        assert_eq!(paid["failure_reason"], Value::Null);
    }
    let refused = cli_refused(
        &app._site,
        &[
            "billing",
            "payout-account",
            "--client-id",
            &client,
            "--environment",
            "test",
            "--name",
            "Partner Ltd",
            "--sort-code",
            "040004",
            "--account-number",
            "10000011",
        ],
    );
    assert!(
        refused.contains("payout_account.account_number: modulus_check_failed"),
        "{refused}"
    );
    let recorded = remit_to(&app, &client, "10000010");
    assert_eq!(
        recorded["payout_account"],
        json!({"name": "Partner Ltd", "sort_code": "040004", "last4": "0010"})
    );
    assert_eq!(recorded["reissued_payouts"], json!([own["id"]]));
    let own = remittance_ended(&app, &key, &march, "paid").await;
    assert!(own["paid_at"].is_string(), "{own}");
    assert_eq!(events_of(&app, &key, "payout.paid").await.len(), 3);
    assert_eq!(
        ledger_balance(&app, "lender:revenue_share_payable"),
        payable_before,
        "every share paid out in the end"
    );
}

#[tokio::test]
async fn a_revenue_share_partner_is_paid_its_share_and_its_sub_account_a_payout() {
    let app = rest_app().await;
    let (client, key) = sharing_partner(&app).await;
    let shown: Value =
        serde_json::from_str(&cli(&app._site, &["billing", "terms", "show", &client])).unwrap();
    assert_eq!(shown["terms"]["model"], "revenue_share");
    let sub = reply(
        app.http
            .post(format!("{}{TEST}/sub-accounts", app.hub))
            .bearer_auth(&key)
            .header("idempotency-key", "sub-broker-1")
            .json(&json!({"name": "Broker Ltd", "revenue_share_bps": 500,
                "payout_account": {"name": "Broker Ltd", "sort_code": "04-00-04",
                    "account_number": "10000010"}}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let sub_id = sub.body["id"].as_str().unwrap().to_owned();
    remit_to(&app, &client, "10000010");

    // 500 k in March: the Embedded tier, 18 % of net margin.
    let year = year_ahead();
    let march = format!("{year}-03");
    clock_to(&app, &key, &format!("{march}-01T09:00:00Z")).await;
    funded(&app, &key, 250_000, json!({ "introduction_id": sub_id })).await;
    funded(&app, &key, 250_000, json!({})).await;

    // First closed after its invoice date (in 2027 Friday 2 April: Good
    // Friday and Easter Monday fall in March): drafted and finalized at once.
    let invoiced = invoice_date(&march);
    if year == 2027 {
        assert_eq!(invoiced, "2027-04-02");
    }
    let after = time::Date::parse(
        &invoiced,
        time::macros::format_description!("[year]-[month]-[day]"),
    )
    .unwrap()
    .next_day()
    .unwrap();
    clock_to(&app, &key, &format!("{after}T08:00:00Z")).await;
    let s = statement_of(&app, &key, &march, "finalized").await;
    assert_eq!(s["model"], "revenue_share");
    assert_eq!(s["tier"], "embedded");
    assert_eq!(s["share_rate"], 0.18);
    assert_eq!(s["share_rate_bps"], 1_800);
    assert_eq!(s["fee_per_origination_pence"], 0, "no fee on a shared loan");
    assert_eq!(s["payable_by"], "lender");
    assert_eq!(s["invoice_date"], invoiced.as_str());
    let margin = s["net_margin_pence"].as_i64().unwrap();
    assert!(margin > 0);
    let payouts = s["payouts"].as_array().unwrap();
    assert_eq!(payouts.len(), 1);
    assert_eq!(payouts[0]["sub_account_id"], sub_id.as_str());
    assert_eq!(payouts[0]["introductions"], 1);
    let gross = payouts[0]["gross_pence"].as_i64().unwrap();
    // Each loan's share rounds down to the penny; the two loans are alike.
    assert_eq!(gross, margin / 2 * 500 / 10_000);
    assert_eq!(
        s["payable_pence"].as_i64().unwrap(),
        2 * (margin / 2 * 1_800 / 10_000) - gross
    );
    assert_eq!(events_of(&app, &key, "invoice.draft").await.len(), 1);
    assert_eq!(events_of(&app, &key, "invoice.finalized").await.len(), 1);

    assert_eq!(
        sub.body["payout_account"],
        json!({"name": "Broker Ltd", "sort_code": "040004", "last4": "0010"})
    );

    // The payout, sent over the rail on the pay date and paid when the
    // rail confirms it.
    let payout = payout_ended(&app, &key, &sub_id, "paid").await;
    let payout = &payout;
    assert!(payout["id"].as_str().unwrap().starts_with("po_"));
    assert_eq!(payout["object"], "payout");
    assert_eq!(payout["period"], march.as_str());
    assert_eq!(payout["status"], "paid");
    assert_eq!(payout["gross_pence"], gross);
    assert_eq!(payout["introductions"], 1);
    assert!(payout["paid_at"].is_string());
    assert_eq!(payout["failure_reason"], Value::Null);
    // The partner's own share, remitted the same way.
    let own = remittance_ended(&app, &key, &march, "paid").await;
    assert_eq!(own["gross_pence"], s["payable_pence"]);
    assert_ne!(own["id"], payout["id"]);
    assert_eq!(
        ledger_balance(&app, "lender:revenue_share_payable"),
        0,
        "the shares the payouts owed left the funding account"
    );
    let paid = events_of(&app, &key, "payout.paid").await;
    assert_eq!(paid.len(), 2);
    let mut paid_ids: Vec<&str> = paid
        .iter()
        .map(|e| e["data"]["object"]["id"].as_str().unwrap())
        .collect();
    paid_ids.sort_unstable();
    let mut expected = vec![payout["id"].as_str().unwrap(), own["id"].as_str().unwrap()];
    expected.sort_unstable();
    assert_eq!(paid_ids, expected);
    let html = app
        .http
        .get(format!(
            "{}{TEST}/statements/{}/invoice",
            app.hub,
            s["id"].as_str().unwrap()
        ))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("Remittance advice") && !html.contains("DRAFT"),
        "{html}"
    );

    // A draft's payout that a change of terms takes away is void, never
    // paid. Leaving the share is a price rise, so it takes effect from a
    // month at least 60 days after today (the real one): April of the
    // test's year, or later when today is too late for that April.
    let today = time::OffsetDateTime::now_utc().date();
    let by = today + Duration::days(60);
    let month = |d: time::Date| (d.year(), d.month() as u8);
    let (mut rise_year, mut m) = if by.day() == 1 {
        month(by)
    } else {
        month(by.replace_day(1).unwrap() + Duration::days(31))
    };
    if (rise_year, m) < (year, 4) {
        (rise_year, m) = (year, 4);
    }
    let period = format!("{rise_year:04}-{m:02}");
    let (next_year, next_m) = if m == 12 {
        (rise_year + 1, 1)
    } else {
        (rise_year, m + 1)
    };
    let next = format!("{next_year:04}-{next_m:02}");
    clock_to(&app, &key, &format!("{period}-05T09:00:00Z")).await;
    // 260 k: Embedded again (a repeat borrower earns nothing as a Referral).
    funded(&app, &key, 250_000, json!({ "introduction_id": sub_id })).await;
    funded(&app, &key, 10_000, json!({})).await;
    clock_to(&app, &key, &format!("{next}-01T09:00:00Z")).await;
    let april = statement_of(&app, &key, &period, "draft").await;
    assert_eq!(april["model"], "revenue_share");
    if period == "2027-04" {
        assert_eq!(
            april["invoice_date"], "2027-05-05",
            "3 May is the early May bank holiday"
        );
    }
    let payouts_in = |status: &'static str| {
        let (app, key, sub_id, period) = (&app, &key, &sub_id, &period);
        async move {
            let r = get(
                app,
                &format!("{TEST}/payouts?sub_account_id={sub_id}"),
                Some(key),
            )
            .await;
            r.body["data"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["period"] == period.as_str() && p["status"] == status)
                .count()
        }
    };
    assert_eq!(payouts_in("pending").await, 1);
    cli(
        &app._site,
        &[
            "billing",
            "terms",
            "set",
            &client,
            "--model",
            "integration-fee",
            "--effective-from",
            &format!("{period}-01"),
        ],
    );
    clock_to(&app, &key, &format!("{next}-15T08:00:00Z")).await;
    let april = statement_of(&app, &key, &period, "finalized").await;
    assert_eq!(april["model"], "integration_fee");
    assert_eq!(april["payable_pence"], 2 * 4_500);
    assert_eq!(payouts_in("void").await, 1);
    assert_eq!(payouts_in("pending").await, 0);
    let april_payouts = get(&app, &format!("{TEST}/payouts"), Some(&key)).await;
    let april_payouts: Vec<&Value> = april_payouts.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["period"] == period.as_str())
        .collect();
    assert_eq!(
        april_payouts.len(),
        2,
        "the sub-account's and the partner's own"
    );
    assert!(april_payouts.iter().all(|p| p["status"] == "void"));
    assert_eq!(
        events_of(&app, &key, "payout.paid").await.len(),
        2,
        "March's two only"
    );
}
