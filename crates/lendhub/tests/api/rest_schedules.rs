//! Payment schedules and mandates (issue #16): a fixed monthly schedule run
//! to settlement by moving the clock, the payer's first authorisation
//! establishing the mandate, a revoked mandate failing the next collection
//! into arrears, open-ended schedules cancelled, and the rules.

use std::collections::HashSet;

use std::sync::Arc;

use lendhub_system::ShiftedClock;
use serde_json::{Value, json};
use time::{Date, Duration, OffsetDateTime};

use crate::partner::assert_hub_error;
use crate::rest_accounts::{fund_over, funded_with};
use crate::rest_payments::account_moves;
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner};
use crate::support::receiver::Receiver;
use crate::support::*;

const SCOPES: &str = "applications.read applications.write decisions.read accounts.read \
                      payments.read payments.write events.read webhooks.manage";
const TEST: &str = "/sandbox/v1";

/// A POST to the test environment with an Idempotency-Key.
pub(crate) async fn post_keyed(
    app: &App,
    key: &str,
    path: &str,
    idempotency_key: &str,
    body: Value,
) -> Reply {
    reply(
        app.http
            .post(format!("{}{TEST}{path}", app.hub))
            .bearer_auth(key)
            .header("idempotency-key", idempotency_key)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// `path` read as a well-behaved client reads it: waiting out a 429 as it
/// says (a test polling for the sweep's work can outrun the rate limit).
async fn get(app: &App, key: &str, path: &str) -> Value {
    loop {
        let r = rest_get(app, &format!("{TEST}{path}"), Some(key)).await;
        if r.status == 429 {
            let wait = r.body["error"]["retry_after_ms"].as_u64().unwrap_or(100);
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            continue;
        }
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        return r.body;
    }
}

/// Now on the partner's test clock.
async fn now(app: &App, key: &str) -> OffsetDateTime {
    let clock = get(app, key, "/test_helpers/clock").await;
    OffsetDateTime::parse(
        clock["now"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap()
}

fn date(v: &Value) -> Date {
    Date::parse(
        v.as_str().unwrap(),
        &time::format_description::well_known::Iso8601::DATE,
    )
    .unwrap()
}

/// Moves the clock to `hours` past the start of `day`; how far it moved.
async fn advance_to(app: &App, key: &str, day: Date, hours: i64) -> Duration {
    let target = day.midnight().assume_utc() + Duration::hours(hours);
    let by = target - now(app, key).await;
    assert!(by > Duration::ZERO, "the clock only moves forward");
    app.advance(by);
    by
}

/// The account's payments, oldest first.
async fn payments_of(app: &App, key: &str, account: &str) -> Vec<Value> {
    let page = get(
        app,
        key,
        &format!("/payments?account_id={account}&limit=100"),
    )
    .await;
    let mut all = page["data"].as_array().unwrap().clone();
    all.reverse();
    all
}

/// The pay page's answer once the payer paid `url` at the model bank from
/// its test account `account`.
async fn pay(app: &App, url: &str, account: &str) -> String {
    let (status, page) = crate::rest_payments::pay_page(app, url, Some(account)).await;
    assert_eq!(status, 200);
    page
}

fn types(receiver: &Receiver) -> Vec<String> {
    receiver
        .all()
        .iter()
        .map(|r| {
            serde_json::from_str::<Value>(&r.body).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_twelve_instalment_monthly_schedule_collects_to_settlement() {
    let mut app = rest_app().await;
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
    let receiver = Receiver::start(&[]).await;
    let hook = post_keyed(
        &app,
        &key,
        "/webhook_endpoints",
        "hook-0001",
        json!({"url": receiver.url, "enabled_events": ["schedule.completed", "account.closed", "mandate.revoked"]}),
    )
    .await;
    assert_eq!(hook.status, 201, "{}", hook.body);
    let account = fund_over(&app, &key, 12).await;
    let a = get(&app, &key, &format!("/accounts/{account}")).await;
    let plan = a["schedule"].as_array().unwrap().clone();
    assert_eq!(plan.len(), 12);
    let monthly = a["monthly_repayment_pence"].as_i64().unwrap();
    let start = date(&plan[0]["due_date"]);

    let created = post_keyed(
        &app,
        &key,
        "/payments/schedules",
        "schedule-0001",
        json!({"account_id": account, "amount_pence": monthly, "cadence": "monthly",
               "start_date": start.to_string(), "count": 12}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let s = &created.body;
    let id = s["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("sch_"), "{id}");
    assert_eq!(s["object"], "payment_schedule");
    assert_eq!(s["status"], "active");
    assert_eq!(s["cadence"], "monthly");
    assert_eq!(s["amount_pence"], monthly);
    assert_eq!(s["count"], 12);
    assert_eq!(s["remaining"], 12);
    assert!(s["mandate_id"].is_null());
    assert_eq!(
        s["next_collection"],
        json!({"payment_id": null, "due_date": start.to_string()})
    );
    assert_eq!(s["upcoming"].as_array().unwrap().len(), 12);
    assert_eq!(
        s["upcoming"][1]["due_date"].as_str().unwrap(),
        plan[1]["due_date"].as_str().unwrap(),
        "monthly from the start date"
    );

    // The first due date: with no mandate yet, the instalment is a link for
    // the payer; authorising it establishes the mandate.
    advance_to(&app, &key, start, 1).await;
    let first = eventually_value(&app, &key, &account, 1).await;
    assert_eq!(first["status"], "pending");
    assert_eq!(first["schedule_id"], id.as_str());
    assert_eq!(first["instalment"], 1);
    assert_eq!(first["amount_pence"], monthly);
    let url = first["url"].as_str().unwrap().to_owned();
    let page = app
        .http
        .get(&url)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("id=\"mandate-terms\""), "{page}");
    assert!(page.contains("monthly, 12 payments in all"), "{page}");
    let answered = pay(&app, &url, "strong").await;
    assert!(
        answered.contains("data-status=\"processing\""),
        "{answered}"
    );
    assert!(
        answered.contains("id=\"mandate\""),
        "a link to see or withdraw it"
    );
    let s = get(&app, &key, &format!("/payments/schedules/{id}")).await;
    let mandate = s["mandate_id"].as_str().unwrap().to_owned();
    assert!(mandate.starts_with("mnd_"), "{s}");
    assert_eq!(s["remaining"], 11);
    assert_eq!(
        s["next_collection"]["payment_id"], first["id"],
        "in flight until it settles"
    );

    // Each later due date collects under the mandate, untouched by anyone,
    // across a restart of the server: the embedded model bank keeps its
    // books in the data directory, so the payer's VRP consent stands.
    for n in 1..12u32 {
        if n == 6 {
            app.restart().await;
        }
        advance_to(&app, &key, date(&plan[n as usize]["due_date"]), 1).await;
        let child = eventually_value(&app, &key, &account, n as usize + 1).await;
        assert_eq!(child["instalment"], n + 1);
        assert_eq!(child["mandate_id"], mandate.as_str());
        assert!(child["url"].is_null(), "no payer action");
        eventually_async("the instalment settles", || async {
            payments_of(&app, &key, &account).await[n as usize]["status"] == "paid"
        })
        .await;
    }

    // Twelve payments, twelve collections, nothing owed, settled.
    let paid = payments_of(&app, &key, &account).await;
    assert_eq!(paid.len(), 12);
    assert!(paid.iter().all(|p| p["status"] == "paid"), "{paid:?}");
    let numbers: HashSet<i64> = paid
        .iter()
        .map(|p| p["instalment"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, (1..=12).collect::<HashSet<_>>(), "each once");
    let last = paid[11]["amount_pence"].as_i64().unwrap();
    assert!(
        (last - monthly).abs() < monthly / 10,
        "the final sweep squares a rounding remainder: {last} against {monthly}"
    );
    let ledger = get(
        &app,
        &key,
        &format!("/accounts/{account}/transactions?limit=100"),
    )
    .await;
    let collections: Vec<&Value> = ledger["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "collection")
        .collect();
    assert_eq!(collections.len(), 12);
    let a = get(&app, &key, &format!("/accounts/{account}")).await;
    assert_eq!(a["status"], "settled", "{a}");
    assert_eq!(a["balance"]["payoff_pence"], 0);
    assert_eq!(a["balance"]["principal_outstanding_pence"], 0);
    let s = get(&app, &key, &format!("/payments/schedules/{id}")).await;
    assert_eq!(s["status"], "completed");
    assert_eq!(s["remaining"], 0);
    assert!(s["next_collection"].is_null());
    assert!(s["finished_at"].is_string());

    // Never in arrears on the way; the events delivered.
    let moves = account_moves(&app, &key, &account).await;
    assert!(
        moves.iter().all(|(_, status)| status != "in_arrears"),
        "{moves:?}"
    );
    eventually("schedule.completed and account.closed delivered", || {
        let t = types(&receiver);
        t.contains(&"schedule.completed".to_owned()) && t.contains(&"account.closed".to_owned())
    })
    .await;
    let completed = receiver
        .all()
        .into_iter()
        .map(|r| serde_json::from_str::<Value>(&r.body).unwrap())
        .find(|e| e["type"] == "schedule.completed")
        .unwrap();
    assert_eq!(completed["data"]["object"]["id"], id.as_str());
    assert_eq!(completed["data"]["object"]["status"], "completed");
}

/// Waits for the account's `n`th payment and returns it.
async fn eventually_value(app: &App, key: &str, account: &str, n: usize) -> Value {
    eventually_async("the instalment is initiated", || async {
        payments_of(app, key, account).await.len() >= n
    })
    .await;
    payments_of(app, key, account).await[n - 1].clone()
}

#[tokio::test]
async fn a_revoked_mandate_fails_the_next_collection_into_arrears_and_a_link_cures_them() {
    let app = rest_app().await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let a = get(&app, &key, &format!("/accounts/{account}")).await;
    let plan = a["schedule"].as_array().unwrap().clone();
    let monthly = a["monthly_repayment_pence"].as_i64().unwrap();
    let start = date(&plan[0]["due_date"]);
    let created = post_keyed(
        &app,
        &key,
        "/payments/schedules",
        "schedule-revoke",
        json!({"account_id": account, "amount_pence": monthly, "cadence": "monthly",
               "start_date": start.to_string(), "count": 6}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(
        created.body["reference"], "ACC-1",
        "the application's reference is echoed: {}",
        created.body
    );
    let id = created.body["id"].as_str().unwrap().to_owned();

    advance_to(&app, &key, start, 1).await;
    let first = eventually_value(&app, &key, &account, 1).await;
    pay(&app, first["url"].as_str().unwrap(), "strong").await;
    let mandate = get(&app, &key, &format!("/payments/schedules/{id}")).await["mandate_id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Another schedule may name the mandate only within what the payer
    // agreed at their bank: not twice the instalment, not weekly.
    for (n, amount, cadence) in [(1, monthly * 2, "monthly"), (2, monthly, "weekly")] {
        let beyond = post_keyed(
            &app,
            &key,
            "/payments/schedules",
            &format!("beyond-the-mandate-{n}"),
            json!({"account_id": account, "amount_pence": amount, "cadence": cadence,
                   "start_date": date(&plan[2]["due_date"]).to_string(), "mandate_id": mandate}),
        )
        .await;
        assert_hub_error(&beyond, 409, "conflict");
        assert!(
            beyond.body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("does not cover"),
            "{}",
            beyond.body
        );
    }

    // The payer withdraws it on its page (the link the pay page showed).
    let paid_page = app
        .http
        .get(first["url"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let href = paid_page
        .split("id=\"mandate\" href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the mandate link")
        .to_owned();
    let mandate_page = format!("{}{href}", app.hub);
    let shown = app
        .http
        .get(&mandate_page)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(shown.contains("data-status=\"active\""), "{shown}");
    let forged = format!("{}{}", app.hub, href.replacen('.', ".x", 1));
    assert_eq!(
        app.http.get(&forged).send().await.unwrap().status(),
        404,
        "a made-up link"
    );
    let revoked = app
        .http
        .post(&mandate_page)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(revoked.contains("data-status=\"revoked\""), "{revoked}");
    let events = get(&app, &key, "/events?type=mandate.revoked").await;
    assert_eq!(events["data"][0]["data"]["object"]["id"], mandate.as_str());
    assert_eq!(events["data"][0]["data"]["object"]["status"], "revoked");
    // The test helper answers the same for a revoked mandate.
    let again = post_keyed(
        &app,
        &key,
        &format!("/test_helpers/mandates/{mandate}/revoke"),
        "revoke-again",
        json!({}),
    )
    .await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["status"], "revoked");
    assert_eq!(
        get(&app, &key, "/events?type=mandate.revoked").await["data"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "revoked once"
    );

    // The next collection fails without asking the bank; the day after its
    // due date the account is in arrears.
    let second_due = date(&plan[1]["due_date"]);
    advance_to(&app, &key, second_due, 1).await;
    eventually_value(&app, &key, &account, 2).await;
    eventually_async("the instalment fails", || async {
        payments_of(&app, &key, &account).await[1]["status"] == "failed"
    })
    .await;
    let second = payments_of(&app, &key, &account).await[1].clone();
    assert_eq!(second["failure_reason"], "mandate_revoked");
    assert_eq!(second["mandate_id"], mandate.as_str());
    // A revoked mandate cannot start a new schedule.
    let reuse = post_keyed(
        &app,
        &key,
        "/payments/schedules",
        "schedule-reuse",
        json!({"account_id": account, "amount_pence": monthly, "cadence": "monthly",
               "start_date": date(&plan[2]["due_date"]).to_string(), "mandate_id": mandate}),
    )
    .await;
    assert_hub_error(&reuse, 409, "conflict");
    advance_to(&app, &key, second_due.next_day().unwrap(), 1).await;
    eventually_async("the account falls into arrears", || async {
        get(&app, &key, &format!("/accounts/{account}")).await["status"] == "in_arrears"
    })
    .await;

    // A link the payer pays clears them.
    let arrears =
        get(&app, &key, &format!("/accounts/{account}/balance")).await["arrears_pence"].clone();
    app.advance(Duration::seconds(1));
    let link = post_keyed(
        &app,
        &key,
        "/payments/links",
        "cure-0001",
        json!({"account_id": account, "amount_pence": arrears}),
    )
    .await;
    assert_eq!(link.status, 201, "{}", link.body);
    pay(&app, link.body["url"].as_str().unwrap(), "strong").await;
    app.advance(Duration::minutes(2));
    eventually_async("the arrears are cleared", || async {
        get(&app, &key, &format!("/accounts/{account}")).await["status"] == "performing"
    })
    .await;
    let moves = account_moves(&app, &key, &account).await;
    assert_eq!(
        moves,
        vec![
            ("account.updated".to_owned(), "in_arrears".to_owned()),
            ("account.updated".to_owned(), "performing".to_owned()),
        ]
    );
    // A fixed schedule whose mandate was revoked can be stopped: cancelled
    // and tombstoned; again answers the same.
    let path = format!("{}{TEST}/payments/schedules/{id}", app.hub);
    let cancel = || app.http.delete(&path).bearer_auth(&key).send();
    let gone = reply(cancel().await.unwrap()).await;
    assert_eq!(gone.status, 200, "{}", gone.body);
    assert_eq!(gone.body["status"], "cancelled");
    assert!(gone.body["next_collection"].is_null());
    let again = reply(cancel().await.unwrap()).await;
    assert_eq!((again.status.as_u16(), &again.body), (200, &gone.body));
    // No more instalments after it.
    advance_to(&app, &key, date(&plan[3]["due_date"]), 1).await;
    app.advance(Duration::seconds(1));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        payments_of(&app, &key, &account).await.len(),
        3,
        "2 + the link"
    );
    let s = get(&app, &key, &format!("/payments/schedules/{id}")).await;
    assert_eq!(
        (s["status"].as_str(), s["remaining"].as_i64()),
        (Some("cancelled"), Some(4))
    );
}

#[tokio::test]
async fn schedules_keep_their_rules() {
    let app = rest_app().await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let today = now(&app, &key).await.date();
    let tomorrow = today.next_day().unwrap().to_string();
    let good = json!({"account_id": account, "amount_pence": 10_000, "cadence": "weekly",
                      "start_date": tomorrow, "count": 4});
    let missing_key = reply(
        app.http
            .post(format!("{}{TEST}/payments/schedules", app.hub))
            .bearer_auth(&key)
            .json(&good)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&missing_key, 400, "idempotency_key_malformed");
    let with = |field: &str, value: Value| {
        let mut body = good.clone();
        body[field] = value;
        body
    };
    let yesterday = today.previous_day().unwrap().to_string();
    for (n, (body, field, reason)) in [
        (with("amount_pence", json!(0)), "amount_pence", "min_value"),
        (
            with("amount_pence", json!(99.5)),
            "amount_pence",
            "integer_pence",
        ),
        (with("cadence", json!("daily")), "cadence", "one_of"),
        (
            with("start_date", json!(yesterday)),
            "start_date",
            "in_the_past",
        ),
        (
            with("start_date", json!("2027-13-01")),
            "start_date",
            "date",
        ),
        (
            with("start_date", json!("2027-01-01T00:00:00Z")),
            "start_date",
            "date",
        ),
        (
            with("start_date", json!("2027-W01-1")),
            "start_date",
            "date",
        ),
        (with("count", json!(0)), "count", "min_value"),
        (with("count", json!(521)), "count", "max_value"),
        (
            with("mandate_id", json!("pay_01KQ3V1Y2C8WZ3R5T6Y7V8W9X0")),
            "mandate_id",
            "pattern",
        ),
        (
            json!({"account_id": account, "amount_pence": 1, "start_date": tomorrow}),
            "cadence",
            "required",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let r = post_keyed(
            &app,
            &key,
            "/payments/schedules",
            &format!("bad-rule-{n}"),
            body,
        )
        .await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["detail"][0]["field"], field, "{}", r.body);
        assert_eq!(r.body["error"]["detail"][0]["reason"], reason, "{}", r.body);
    }
    let unknown = post_keyed(
        &app,
        &key,
        "/payments/schedules",
        "unknown-mandate",
        with("mandate_id", json!("mnd_01KQ3V1Y2C8WZ3R5T6Y7V8W9X0")),
    )
    .await;
    assert_hub_error(&unknown, 404, "not_found");

    // Created today as a weekly plan of four; the same key answers the same.
    let created = post_keyed(&app, &key, "/payments/schedules", "weekly-4", good.clone()).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let replayed = post_keyed(&app, &key, "/payments/schedules", "weekly-4", good.clone()).await;
    assert_eq!(
        (replayed.status.as_u16(), &replayed.body),
        (201, &created.body)
    );
    let id = created.body["id"].as_str().unwrap();
    let dates: Vec<&str> = created.body["upcoming"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["due_date"].as_str().unwrap())
        .collect();
    assert_eq!(dates.len(), 4);
    assert_eq!(
        date(&json!(dates[3])) - date(&json!(dates[0])),
        Duration::weeks(3)
    );
    // A fixed schedule runs to its end.
    let path = format!("{}{TEST}/payments/schedules/{id}", app.hub);
    let refused = reply(
        app.http
            .delete(&path)
            .bearer_auth(&key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&refused, 409, "conflict");
    // An open-ended one is cancelled and tombstoned; again answers the same.
    let mut open = good.clone();
    open.as_object_mut().unwrap().remove("count");
    let open = post_keyed(&app, &key, "/payments/schedules", "open-ended", open).await;
    assert_eq!(open.status, 201, "{}", open.body);
    assert!(open.body["count"].is_null() && open.body["remaining"].is_null());
    assert_eq!(
        open.body["upcoming"].as_array().unwrap().len(),
        12,
        "the next twelve"
    );
    let open_path = format!(
        "{}{TEST}/payments/schedules/{}",
        app.hub,
        open.body["id"].as_str().unwrap()
    );
    let cancel = || app.http.delete(&open_path).bearer_auth(&key).send();
    let gone = reply(cancel().await.unwrap()).await;
    assert_eq!(gone.status, 200, "{}", gone.body);
    assert_eq!(gone.body["status"], "cancelled");
    assert!(gone.body["next_collection"].is_null() && gone.body["upcoming"] == json!([]));
    let again = reply(cancel().await.unwrap()).await;
    assert_eq!((again.status.as_u16(), &again.body), (200, &gone.body));
    // Another partner's, and the live environment, see nothing.
    let (other, _) = funded_with(&app, SCOPES).await;
    assert_eq!(
        rest_get(
            &app,
            &format!("{TEST}/payments/schedules/{id}"),
            Some(&other)
        )
        .await
        .status,
        404
    );
    let their_account = post_keyed(
        &app,
        &other,
        "/payments/schedules",
        "not-mine",
        good.clone(),
    )
    .await;
    assert_hub_error(&their_account, 404, "not_found");
}

/// Two instances on one PostgreSQL database, both woken at every due date:
/// each instalment is initiated once, whichever instance's scheduler won.
/// The model bank's client credentials in these tests.
const BANK_CLIENT: (&str, &str) = ("lendhub", "shared-bank-secret");

/// An app whose test environment reaches a model bank the test holds (its
/// address, and the clock it reads, which the test moves with the app's):
/// as a deployment's instances reach one bank, and so a test can act as
/// the payer at their bank.
async fn beside_a_model_bank(site: Site) -> (App, String, Arc<ShiftedClock>) {
    let port = crate::open_banking::free_port();
    let hub = format!("http://127.0.0.1:{port}");
    let bank_clock = ShiftedClock::new();
    let registration = lendhub_models::bank::Registration::lendhub(
        BANK_CLIENT.0.to_owned(),
        BANK_CLIENT.1.to_owned(),
        vec![format!("{hub}/open-banking/callback")],
    )
    .notifying(format!(
        "{hub}/open-banking/events/{}",
        crate::rest_payments::MODEL_BANK
    ));
    let clock = bank_clock.clone();
    let (bank, ()) =
        lendhub_models::spawn_at(std::net::SocketAddr::from(([127, 0, 0, 1], 0)), |base| {
            (
                lendhub_models::bank::router_on(base, registration, clock),
                (),
            )
        })
        .await
        .unwrap();
    let bank = format!("http://{bank}");
    let mut config = crate::support::test_config(&site);
    config.rest_tier.enabled = true;
    config.hub.addr = format!("127.0.0.1:{port}").parse().unwrap();
    config.hub.public_url = Some(hub.parse().unwrap());
    let ob = &mut config.counterparties.test.open_banking;
    crate::open_banking::paying(ob);
    ob.banks.insert(
        crate::rest_payments::MODEL_BANK.into(),
        lendhub::config::Bank {
            name: "Model Bank (shared)".into(),
            discovery_url: format!("{bank}/.well-known/openid-configuration"),
            api_base_url: format!("{bank}/open-banking/v3.1"),
            client_id: BANK_CLIENT.0.into(),
            client_secret: BANK_CLIENT.1.to_owned().into(),
        },
    );
    (App::spawn_with(config, site).await, bank, bank_clock)
}

/// What lendhub and the bank exchanged, oldest first.
async fn bank_exchanges(bank: &str) -> Value {
    reqwest::Client::new()
        .get(format!("{bank}/_model/exchanges"))
        .basic_auth(BANK_CLIENT.0, Some(BANK_CLIENT.1))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The VRP consents the bank was asked for, newest last.
async fn vrp_consents(bank: &str) -> Vec<String> {
    bank_exchanges(bank)
        .await
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["operation"] == "POST /domestic-vrp-consents")
        .map(|x| {
            x["response"]["Data"]["ConsentId"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_mandate_revoked_at_the_payers_bank_fails_the_next_instalment_and_is_revoked() {
    let (app, bank, bank_clock) = beside_a_model_bank(Site::new().await).await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let a = get(&app, &key, &format!("/accounts/{account}")).await;
    let start = date(&a["schedule"][0]["due_date"]);
    let created = post_keyed(
        &app,
        &key,
        "/payments/schedules",
        "revoked-at-bank",
        json!({"account_id": account, "amount_pence": 10_000, "cadence": "weekly",
               "start_date": start.to_string(), "count": 3}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    bank_clock.advance(advance_to(&app, &key, start, 1).await);
    let first = eventually_value(&app, &key, &account, 1).await;
    // Paying the first instalment authorises the mandate: a VRP consent at
    // the bank, and the instalment its first payment.
    let page = pay(&app, first["url"].as_str().unwrap(), "strong").await;
    assert!(page.contains("data-status=\"processing\""), "{page}");
    let consents = vrp_consents(&bank).await;
    assert_eq!(consents.len(), 1, "{consents:?}");
    let paid = payments_of(&app, &key, &account).await[0].clone();
    let mandate = paid["mandate_id"].as_str().unwrap().to_owned();

    // The bank settles the instalment and notifies lendhub, which books
    // it before answering: paid, with lendhub's clock where it was.
    let at_bank = bank_exchanges(&bank)
        .await
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["operation"] == "POST /domestic-vrps" && x["status"] == 201)
        .and_then(|x| x["response"]["Data"]["DomesticVRPId"].as_str())
        .unwrap()
        .to_owned();
    let notified: Value = reqwest::Client::new()
        .post(format!("{bank}/_model/payments/{at_bank}/settle"))
        .basic_auth(BANK_CLIENT.0, Some(BANK_CLIENT.1))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(notified["notified"], 202, "{notified}");
    let first = payments_of(&app, &key, &account).await[0].clone();
    assert_eq!(first["status"], "paid", "{first}");

    // The payer revokes it at their bank, between instalments.
    let revoked = reqwest::Client::new()
        .post(format!("{bank}/_model/consents/{}/revoke", consents[0]))
        .basic_auth(BANK_CLIENT.0, Some(BANK_CLIENT.1))
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 204);
    let second_due = start + Duration::weeks(1);
    bank_clock.advance(advance_to(&app, &key, second_due, 1).await);
    eventually_async("the next instalment fails", || async {
        let all = payments_of(&app, &key, &account).await;
        all.len() == 2 && all[1]["status"] == "failed"
    })
    .await;
    let second = payments_of(&app, &key, &account).await[1].clone();
    assert_eq!(second["failure_reason"], "mandate_revoked", "{second}");
    let events = get(&app, &key, "/events?type=mandate.revoked").await;
    let revoked = events["data"].as_array().unwrap();
    assert_eq!(revoked.len(), 1, "{events}");
    assert_eq!(revoked[0]["data"]["object"]["id"], mandate.as_str());
    assert_eq!(revoked[0]["data"]["object"]["status"], "revoked");
}

/// Moves the partner's own test clock (not the server's) to `hours` past
/// the start of `day`.
async fn test_clock_to(app: &App, key: &str, day: Date, hours: i64) {
    let target = day.midnight().assume_utc() + Duration::hours(hours);
    let by = target - now(app, key).await;
    let moved = crate::rest_tier::rest_post(
        app,
        &format!("{TEST}/test_helpers/clock/advance"),
        key,
        json!({"seconds": by.whole_seconds()}),
    )
    .await;
    assert_eq!(moved.status, 200, "{}", moved.body);
}

/// A partner moving its own test clock through a weekly schedule: the
/// embedded model bank reads the server's clock, which stays put, yet
/// counts each instalment in its own week (lendhub states the due date),
/// so the consent's weekly limit takes every instalment.
#[tokio::test]
async fn a_schedule_runs_through_on_the_partners_own_test_clock() {
    let app = rest_app().await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let a = get(&app, &key, &format!("/accounts/{account}")).await;
    let start = date(&a["schedule"][0]["due_date"]);
    let created = post_keyed(
        &app,
        &key,
        "/payments/schedules",
        "own-test-clock",
        json!({"account_id": account, "amount_pence": 10_000, "cadence": "weekly",
               "start_date": start.to_string(), "count": 4}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    test_clock_to(&app, &key, start, 1).await;
    let first = eventually_value(&app, &key, &account, 1).await;
    pay(&app, first["url"].as_str().unwrap(), "strong").await;
    for n in 1..4u32 {
        test_clock_to(&app, &key, start + Duration::weeks(i64::from(n)), 1).await;
        eventually_value(&app, &key, &account, n as usize + 1).await;
    }
    eventually_async("every instalment is taken", || async {
        let all = payments_of(&app, &key, &account).await;
        all.len() == 4 && all.iter().all(|p| p["status"] != "pending")
    })
    .await;
    test_clock_to(&app, &key, start + Duration::weeks(3), 2).await;
    eventually_async("every instalment is paid", || async {
        let all = payments_of(&app, &key, &account).await;
        all.len() == 4 && all.iter().all(|p| p["status"] == "paid")
    })
    .await;
}

#[tokio::test]
async fn two_instances_initiate_each_instalment_once() {
    let (app, _bank, bank_clock) = beside_a_model_bank(Site::postgres().await).await;
    let second = app.another_instance().await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let a = get(&app, &key, &format!("/accounts/{account}")).await;
    let plan = a["schedule"].as_array().unwrap().clone();
    let start = date(&plan[0]["due_date"]);
    let created = post_keyed(
        &app,
        &key,
        "/payments/schedules",
        "two-instances",
        json!({"account_id": account, "amount_pence": 10_000, "cadence": "weekly",
               "start_date": start.to_string(), "count": 12}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();
    bank_clock.advance(advance_to(&app, &key, start, 1).await);
    second.expiry_wake.notify_one();
    let first = eventually_value(&app, &key, &account, 1).await;
    pay(&app, first["url"].as_str().unwrap(), "strong").await;
    for n in 1..12u32 {
        let due = start + Duration::weeks(i64::from(n));
        bank_clock.advance(advance_to(&app, &key, due, 1).await);
        second.expiry_wake.notify_one();
        eventually_value(&app, &key, &account, n as usize + 1).await;
    }
    // Once the last is taken at the bank, the bank is asked about it a
    // moment later.
    eventually_async("every instalment is taken", || async {
        let all = payments_of(&app, &key, &account).await;
        all.len() == 12 && all.iter().all(|p| p["status"] != "pending")
    })
    .await;
    app.advance(Duration::minutes(1));
    bank_clock.advance(Duration::minutes(1));
    second.expiry_wake.notify_one();
    // Time moves on while we wait: each look a minute later, so the bank
    // is asked again whichever instance's pass missed it.
    eventually_async("every instalment settles", || async {
        app.advance(Duration::minutes(1));
        bank_clock.advance(Duration::minutes(1));
        second.expiry_wake.notify_one();
        let all = payments_of(&app, &key, &account).await;
        all.len() == 12 && all.iter().all(|p| p["status"] == "paid")
    })
    .await;
    // A moment more for a straggler to show itself.
    app.advance(Duration::hours(1));
    bank_clock.advance(Duration::hours(1));
    second.expiry_wake.notify_one();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let all = payments_of(&app, &key, &account).await;
    assert_eq!(all.len(), 12, "one payment per instalment: {all:?}");
    let numbers: HashSet<i64> = all
        .iter()
        .map(|p| p["instalment"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers.len(), 12);
    let s = get(&app, &key, &format!("/payments/schedules/{id}")).await;
    assert_eq!(s["status"], "completed", "{s}");
    let collections = get(
        &app,
        &key,
        &format!("/accounts/{account}/transactions?limit=100"),
    )
    .await["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "collection")
        .count();
    assert_eq!(collections, 12, "one ledger entry per instalment");
    second.stop().await;
}
