//! Payment links (issue #16): created by the partner, paid on the hosted pay
//! page at the embedded model bank over open-banking payment initiation
//! (issue #46), settled into the account's ledger when the bank says so;
//! each failure reason and a lapsed link.

use serde_json::{Value, json};
use time::Duration;

use crate::partner::assert_hub_error;
use crate::rest_accounts::funded_with;
use crate::rest_tier::{rest_app, rest_get};
use crate::support::python_json;
use crate::support::*;

pub const SCOPES: &str = "applications.read applications.write decisions.read accounts.read \
                      payments.read payments.write events.read";
const TEST: &str = "/sandbox/v1";

pub async fn link(app: &App, key: &str, idempotency_key: &str, body: Value) -> Reply {
    // Spaced as the links sub-limit (10/s) allows below the platform tier.
    app.advance(Duration::milliseconds(200));
    reply(
        app.http
            .post(format!("{}{TEST}/payments/links", app.hub))
            .bearer_auth(key)
            .header("idempotency-key", idempotency_key)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// The embedded model bank, the one bank a test environment offers.
pub const MODEL_BANK: &str = "model_bank";

/// The pay page: (status, text) of a GET; or, with `payer`, of paying at
/// the model bank: the payer chooses it, and on its consent page approves
/// paying from the test account `payer` names (`strong`, `low`, `closed`,
/// `docs/guide/src/simulators.md`) or, with `decline`, declines; the bank sends them
/// back through lendhub's callback to the page that says how it went.
pub async fn pay_page(app: &App, url: &str, payer: Option<&str>) -> (u16, String) {
    let Some(payer) = payer else {
        return html(app.http.get(url).send().await.unwrap()).await;
    };
    let chosen = app
        .http
        .post(url)
        .form(&[("bank", MODEL_BANK)])
        .send()
        .await
        .unwrap();
    if chosen.url().as_str().starts_with(&app.hub) {
        // Not sent to the bank: the page says why (paid, lapsed, …).
        return html(chosen).await;
    }
    let (page, landed) = answer_at_bank(&app.http, chosen, payer).await;
    assert!(landed.starts_with(&app.hub), "back at {landed}");
    page
}

/// On the model bank's consent page `consent` (a followed answer), the
/// payer approves paying from `account`, or declines with `decline`: the
/// page lendhub shows when they are back, and where that is.
pub async fn answer_at_bank(
    http: &reqwest::Client,
    consent: reqwest::Response,
    account: &str,
) -> ((u16, String), String) {
    assert_eq!(consent.status(), 200, "{}", consent.url());
    let bank = consent.url().origin().ascii_serialization();
    let page = consent.text().await.unwrap();
    let token = consent_form_token(&page);
    let decision = if account == "decline" {
        "decline"
    } else {
        "approve"
    };
    let back = http
        .post(format!("{bank}/authorize"))
        .form(&[
            ("page", token.as_str()),
            ("decision", decision),
            ("account", account),
        ])
        .send()
        .await
        .unwrap();
    let landed = back.url().to_string();
    (html(back).await, landed)
}

async fn html(r: reqwest::Response) -> (u16, String) {
    let status = r.status().as_u16();
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    (status, r.text().await.unwrap())
}

/// The account's events still in the log, oldest first: (type, the
/// account's status in it).
pub async fn account_moves(app: &App, key: &str, account: &str) -> Vec<(String, String)> {
    let events = rest_get(app, &format!("{TEST}/events?limit=100"), Some(key)).await;
    events.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .filter(|e| e["data"]["object"]["id"] == account)
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_owned(),
                e["data"]["object"]["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

pub async fn payment(app: &App, key: &str, id: &str) -> Value {
    rest_get(app, &format!("{TEST}/payments/{id}"), Some(key))
        .await
        .body
}

#[tokio::test]
async fn a_payment_link_is_paid_on_the_pay_page_and_settles_into_the_ledger() {
    let app = rest_app().await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let body = json!({"account_id": account, "amount_pence": 46_589, "reference": "INV-0001",
                      "description": "November repayment", "redirect_url": "https://partner.example/paid"});

    // The rules.
    let missing_key = reply(
        app.http
            .post(format!("{}{TEST}/payments/links", app.hub))
            .bearer_auth(&key)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_hub_error(&missing_key, 400, "idempotency_key_malformed");
    for (bad, field, reason) in [
        (
            json!({"account_id": account, "amount_pence": 0}),
            "amount_pence",
            "min_value",
        ),
        (
            json!({"account_id": account, "amount_pence": 12.5}),
            "amount_pence",
            "integer_pence",
        ),
        (
            json!({"account_id": account, "amount_pence": 100, "reference": "A-REFERENCE-TOO-LONG"}),
            "reference",
            "max_length",
        ),
        (
            json!({"account_id": account, "amount_pence": 100, "redirect_url": "http://partner.example"}),
            "redirect_url",
            "https_required",
        ),
        (json!({"amount_pence": 100}), "account_id", "required"),
    ] {
        let r = link(&app, &key, &format!("bad-{field}-{reason}"), bad).await;
        assert_hub_error(&r, 422, "validation_failed");
        assert_eq!(r.body["error"]["detail"][0]["field"], field, "{}", r.body);
        assert_eq!(r.body["error"]["detail"][0]["reason"], reason, "{}", r.body);
    }
    let r = link(
        &app,
        &key,
        "unknown-account",
        json!({"account_id": "acc_01KQ3V1Y2C8WZ3R5T6Y7V8W9X0", "amount_pence": 100}),
    )
    .await;
    assert_hub_error(&r, 404, "not_found");

    // Created: pending, with its hosted page; the same key answers the same.
    let created = link(&app, &key, "link-0001", body.clone()).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let p = &created.body;
    assert!(p["id"].as_str().unwrap().starts_with("pay_"));
    assert_eq!(p["object"], "payment");
    assert_eq!(p["status"], "pending");
    assert_eq!(p["currency"], "GBP");
    assert_eq!(p["amount_pence"], 46_589);
    assert_eq!(p["livemode"], false);
    let url = p["url"].as_str().unwrap().to_owned();
    assert!(url.starts_with(&format!("{}/pay/pay_", app.hub)), "{url}");
    let again = link(&app, &key, "link-0001", body.clone()).await;
    assert_eq!(again.body, created.body);
    let id = p["id"].as_str().unwrap().to_owned();

    // The pay page: the payment, the banks; a made-up link is a clear page.
    let (status, page) = pay_page(&app, &url, None).await;
    assert_eq!(status, 200);
    assert!(
        page.contains("£465.89") && page.contains("INV-0001"),
        "{page}"
    );
    assert!(
        page.contains(&format!("value=\"{MODEL_BANK}\"")) && page.contains("Model Bank"),
        "{page}"
    );
    let (status, page) = pay_page(&app, &format!("{}x", &url[..url.len() - 1]), None).await;
    assert_eq!(status, 404);
    assert!(page.contains("does not work"), "{page}");

    // Authorised at the bank: processing, then paid when the bank, asked
    // on the clock, says it settled.
    let (status, page) = pay_page(&app, &url, Some("strong")).await;
    assert_eq!(status, 200);
    assert!(page.contains("data-status=\"processing\""), "{page}");
    assert!(
        page.contains(&format!("https://partner.example/paid?payment_id={id}")),
        "{page}"
    );
    let processing = payment(&app, &key, &id).await;
    assert_eq!(processing["status"], "processing");
    assert_eq!(processing["payer_bank"], MODEL_BANK);
    assert!(processing["authorised_at"].is_string(), "{processing}");
    let (_, page) = pay_page(&app, &url, Some("strong")).await;
    assert!(
        page.contains("data-status=\"processing\""),
        "paying twice changes nothing"
    );
    app.advance(Duration::minutes(2));
    eventually_async("the payment settles", || async {
        payment(&app, &key, &id).await["status"] == "paid"
    })
    .await;
    let paid = payment(&app, &key, &id).await;
    assert!(paid["settled_at"].is_string());
    assert!(paid["url"].is_null(), "no page once paid");

    // The ledger has the collection; the balance is lower by it.
    let t = rest_get(
        &app,
        &format!("{TEST}/accounts/{account}/transactions"),
        Some(&key),
    )
    .await;
    let newest = &t.body["data"][0];
    assert_eq!(newest["type"], "collection");
    assert_eq!(newest["amount_pence"], 46_589);
    assert_eq!(newest["payment_id"], id.as_str());
    let b = rest_get(
        &app,
        &format!("{TEST}/accounts/{account}/balance"),
        Some(&key),
    )
    .await;
    assert_eq!(b.body["principal_outstanding_pence"], 1_000_000 - 46_589);

    // The events, in order.
    let events = rest_get(&app, &format!("{TEST}/events?limit=100"), Some(&key)).await;
    let types: Vec<&str> = events.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .filter(|e| e["data"]["object"]["id"] == id.as_str())
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "payment.created",
            "payment.processing",
            "payment.paid",
            "payment.settled"
        ],
        "the seed's two names for settlement, both sent"
    );
    // And the catalogue's status names filter too.
    let settled = rest_get(
        &app,
        &format!("{TEST}/payments?status=settled&account_id={account}"),
        Some(&key),
    )
    .await;
    assert_eq!(settled.status, 200, "{}", settled.body);
    assert_eq!(settled.body["data"][0]["id"], id.as_str());
    assert!(
        settled.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["status"] == "paid")
    );

    // Each way the payer's bank fails it, with its reason and a page that
    // says so: declined at the bank, an account the bank rejects at once,
    // and one it accepts and then rejects when next asked.
    for (n, (payer, reason)) in [
        ("decline", "payer_cancelled"),
        ("closed", "insufficient_funds"),
        ("low", "insufficient_funds"),
    ]
    .into_iter()
    .enumerate()
    {
        let r = link(
            &app,
            &key,
            &format!("link-fail-{n}"),
            json!({"account_id": account, "amount_pence": 1_000}),
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.body);
        let url = r.body["url"].as_str().unwrap();
        let id = r.body["id"].as_str().unwrap();
        let (_, page) = pay_page(&app, url, Some(payer)).await;
        if payer == "low" {
            assert!(page.contains("data-status=\"processing\""), "{page}");
            app.advance(Duration::minutes(1));
            eventually_async("the bank rejects it", || async {
                payment(&app, &key, id).await["status"] == "failed"
            })
            .await;
            let (_, later) = pay_page(&app, url, None).await;
            assert!(later.contains("not enough money"), "{later}");
        } else {
            assert!(
                page.contains(&format!("data-reason=\"{reason}\"")),
                "{payer}: {page}"
            );
        }
        let failed = payment(&app, &key, id).await;
        assert_eq!(failed["status"], "failed");
        assert_eq!(failed["failure_reason"], reason);
    }

    // A link left unpaid lapses: link_expired, and its page says so.
    let soon = (lendhub_domain::clock::Clock::now(app.clock.as_ref()) + Duration::days(1))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let r = link(
        &app,
        &key,
        "link-lapses",
        json!({"account_id": account, "amount_pence": 1_000, "expires_at": soon}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let lapsing = r.body["id"].as_str().unwrap().to_owned();
    let url = r.body["url"].as_str().unwrap().to_owned();
    app.advance(Duration::days(2));
    let (_, page) = pay_page(&app, &url, Some("strong")).await;
    assert!(page.contains("expired"), "{page}");
    eventually_async("the link lapses", || async {
        payment(&app, &key, &lapsing).await["status"] == "failed"
    })
    .await;
    let lapsed = payment(&app, &key, &lapsing).await;
    assert_eq!(lapsed["failure_reason"], "link_expired", "{lapsed}");

    // The list, by status and account.
    let l = rest_get(
        &app,
        &format!("{TEST}/payments?status=failed&account_id={account}"),
        Some(&key),
    )
    .await;
    assert_eq!(l.body["data"].as_array().unwrap().len(), 4, "{}", l.body);
    let l = rest_get(&app, &format!("{TEST}/payments?status=paid"), Some(&key)).await;
    assert_eq!(l.body["data"][0]["id"], id.as_str());
    assert_hub_error(
        &rest_get(&app, &format!("{TEST}/payments?status=cleared"), Some(&key)).await,
        422,
        "validation_failed",
    );
}

/// The pay page in headless Chromium (JavaScript off): a payment that goes
/// through and one of each failure reason, each page saying so.
#[tokio::test]
async fn the_pay_page_in_chromium_pays_and_fails_with_each_reason() {
    let app = rest_app().await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let mut links = serde_json::Map::new();
    for (n, payer) in ["strong", "closed", "decline"].into_iter().enumerate() {
        let r = link(
            &app,
            &key,
            &format!("browser-link-{n}"),
            json!({"account_id": account, "amount_pence": 12_345, "reference": format!("B-{n}"),
                   "redirect_url": "https://partner.example/back"}),
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.body);
        links.insert(payer.to_owned(), r.body["url"].clone());
    }
    let r = crate::support::python_json(
        "pay_browser.py",
        vec![("LINKS", Value::Object(links).to_string())],
    )
    .await;
    let ok = &r["strong"];
    assert_eq!(ok["amount"], "£123.45", "{r}");
    // Through the bank's own page and back.
    assert!(
        ok["bank_url"].as_str().unwrap().ends_with("/authorize"),
        "{r}"
    );
    assert_eq!(ok["status"], "processing", "{r}");
    assert!(
        ok["landed"][0]
            .as_str()
            .unwrap()
            .starts_with("https://partner.example/back?payment_id=pay_"),
        "{r}"
    );
    for (payer, reason) in [
        ("closed", "insufficient_funds"),
        ("decline", "payer_cancelled"),
    ] {
        assert_eq!(r[payer]["status"], "failed", "{payer}: {r}");
        assert_eq!(r[payer]["reason"], reason, "{payer}: {r}");
    }
}

/// `POST /payments/{payment}/refund` with reason "paid twice", signed with
/// `signer` (the request key's PEMs and its kid) when given.
pub async fn refund_payment(
    app: &App,
    key: &str,
    signer: Option<(&Value, &str)>,
    payment: String,
    idem: &str,
) -> Reply {
    let path = format!("{TEST}/payments/{payment}/refund");
    let body = r#"{"reason":"paid twice"}"#;
    let mut request = app
        .http
        .post(format!("{}{path}", app.hub))
        .bearer_auth(key)
        .header("idempotency-key", idem)
        .header("content-type", "application/json")
        .body(body);
    if let Some((keys, kid)) = signer {
        let t = time::OffsetDateTime::now_utc().unix_timestamp();
        let signature = python_json(
            "request_sign.py",
            vec![
                ("MODE", "sign".into()),
                (
                    "PRIVATE_PEM",
                    keys["private_pem"].as_str().unwrap().to_owned(),
                ),
                ("T", t.to_string()),
                ("METHOD", "POST".into()),
                ("PATH", path.clone()),
                ("IDEMPOTENCY_KEY", idem.into()),
                ("BODY", body.into()),
                ("KID", kid.into()),
            ],
        )
        .await;
        request = request.header(
            "service-request-signature",
            signature["header"].as_str().unwrap(),
        );
    }
    reply(request.send().await.unwrap()).await
}

/// A refund moves money out, so it is signed (checked against Python's
/// `cryptography` as the signer): a paid payment refunded in full,
/// `payment.refunded`, and a refund on the statement once the rail pays
/// it back; anything else is 409.
#[tokio::test]
async fn a_paid_payment_is_refunded_in_full_by_a_signed_request() {
    use crate::rest_tier::{api_key, rest_partner};
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
    let account = crate::rest_accounts::fund(&app, &key).await;
    let (keys, kid) = crate::rest_webhooks::request_key(&app, &client).await;

    let paid = link(
        &app,
        &key,
        "refund-link-1",
        json!({"account_id": account, "amount_pence": 46_589}),
    )
    .await;
    let id = paid.body["id"].as_str().unwrap().to_owned();
    let pending = link(
        &app,
        &key,
        "refund-link-2",
        json!({"account_id": account, "amount_pence": 100}),
    )
    .await;
    let pending_id = pending.body["id"].as_str().unwrap().to_owned();
    pay_page(&app, paid.body["url"].as_str().unwrap(), Some("strong")).await;
    app.advance(Duration::minutes(2));
    eventually_async("the payment settles", || async {
        payment(&app, &key, &id).await["status"] == "paid"
    })
    .await;

    let refund = |payment: String, idem: &'static str, signed: bool| {
        let signer = signed.then_some((&keys, kid.as_str()));
        refund_payment(&app, &key, signer, payment, idem)
    };
    assert_hub_error(
        &refund(id.clone(), "refund-0001", false).await,
        400,
        "signature_invalid",
    );
    let r = refund(id.clone(), "refund-0002", true).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "refunded");
    assert!(r.body["refunded_at"].is_string());
    let statement = || async {
        rest_get(
            &app,
            &format!("{TEST}/accounts/{account}/transactions"),
            Some(&key),
        )
        .await
        .body
    };
    let principal = || async {
        rest_get(
            &app,
            &format!("{TEST}/accounts/{account}/balance"),
            Some(&key),
        )
        .await
        .body["principal_outstanding_pence"]
            .clone()
    };
    // Until the rail says the money reached the payer, nothing is owed
    // again: the ledger holds the refund pending.
    assert_eq!(statement().await["data"][0]["type"], "collection");
    assert!(principal().await.as_i64().unwrap() < 1_000_000);
    assert_eq!(r.body["refund"]["status"], "pending", "{}", r.body);
    let events = rest_get(&app, &format!("{TEST}/events?limit=5"), Some(&key)).await;
    assert!(
        events.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "payment.refunded" && e["data"]["object"]["id"] == id.as_str()),
        "{}",
        events.body
    );
    // The money goes back over the payout rail to the account that paid.
    eventually_async("the refund is paid back", || async {
        payment(&app, &key, &id).await["refund"]["status"] == "paid"
    })
    .await;
    let t = statement().await;
    let newest = &t["data"][0];
    assert_eq!(newest["type"], "refund", "{t}");
    assert_eq!(newest["amount_pence"], -46_589);
    assert_eq!(newest["payment_id"], id.as_str());
    assert_eq!(
        principal().await,
        1_000_000,
        "what it paid off is owed again"
    );

    assert_hub_error(
        &refund(id.clone(), "refund-0003", true).await,
        409,
        "conflict",
    );
    assert_hub_error(
        &refund(pending_id, "refund-0004", true).await,
        409,
        "conflict",
    );
}

/// The account follows its ledger on the clock: an instalment due and
/// unpaid puts it in arrears (`account.updated`), a collection clears them
/// (`account.updated`), and paying off what is owed settles it
/// (`account.closed`).
#[tokio::test]
async fn an_account_falls_into_arrears_is_cured_by_a_payment_and_settles_when_paid_off() {
    let app = rest_app().await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let get_account = || async {
        rest_get(&app, &format!("{TEST}/accounts/{account}"), Some(&key))
            .await
            .body
    };
    let first = get_account().await["schedule"][0].clone();
    assert_eq!(get_account().await["status"], "performing");

    // The first instalment falls due unpaid.
    app.advance(Duration::days(32));
    eventually_async("the account falls into arrears", || async {
        get_account().await["status"] == "in_arrears"
    })
    .await;
    let a = get_account().await;
    let arrears = a["balance"]["arrears_pence"].as_i64().unwrap();
    assert_eq!(arrears, first["amount_pence"].as_i64().unwrap());

    // Paid: out of arrears.
    let pay = |amount: i64, idem: &'static str| {
        let (app, key, account) = (&app, &key, &account);
        async move {
            let r = link(
                app,
                key,
                idem,
                json!({"account_id": account, "amount_pence": amount}),
            )
            .await;
            assert_eq!(r.status, 201, "{}", r.body);
            pay_page(app, r.body["url"].as_str().unwrap(), Some("strong")).await;
            app.advance(Duration::minutes(2));
            let id = r.body["id"].as_str().unwrap().to_owned();
            eventually_async("the payment settles", || async {
                payment(app, key, &id).await["status"] == "paid"
            })
            .await;
        }
    };
    pay(arrears, "cure-0001").await;
    let a = get_account().await;
    assert_eq!(a["status"], "performing", "{a}");
    assert_eq!(a["balance"]["arrears_pence"], 0);

    // Paid off: settled, and the facility closed.
    let payoff = a["balance"]["payoff_pence"].as_i64().unwrap();
    pay(payoff, "payoff-0001").await;
    let a = get_account().await;
    assert_eq!(a["status"], "settled", "{a}");
    assert_eq!(a["balance"]["payoff_pence"], 0);

    let moves = account_moves(&app, &key, &account).await;
    // (account.activated and loan.funded, 32 days back on the clock, were
    // pruned after 30 days, as every event is.)
    assert_eq!(
        moves,
        [
            ("account.updated", "in_arrears"),
            ("account.updated", "performing"),
            ("account.closed", "settled"),
        ]
        .map(|(t, s)| (t.to_owned(), s.to_owned()))
    );
}

/// The operator's CLI: a hardship arrangement holds the account out of
/// arrears, its end hands it back to its ledger, a write-off closes it;
/// each announced to the partner.
#[tokio::test]
async fn staff_forbear_end_forbearance_and_write_off_an_account() {
    use crate::support::process::{cli, cli_refused};
    let app = rest_app().await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let status = || async {
        rest_get(&app, &format!("{TEST}/accounts/{account}"), Some(&key))
            .await
            .body["status"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let staff = |act: &str| {
        let out = cli(
            &app._site,
            &[
                "accounts",
                act,
                &account,
                "--by",
                "Grace Hopper",
                "--note",
                "hardship call 2026-11-26",
            ],
        );
        serde_json::from_str::<Value>(&out).unwrap()
    };
    assert_eq!(staff("forbear")["status"], "forborne");
    assert_eq!(status().await, "forborne");
    // The first instalment falls due: a forborne account stays forborne.
    // (The partner's test clock, which the CLI reads too, is moved.)
    let moved = crate::rest_tier::rest_post(
        &app,
        &format!("{TEST}/test_helpers/clock/advance"),
        &key,
        json!({"seconds": 32 * 86_400}),
    )
    .await;
    assert_eq!(moved.status, 200, "{}", moved.body);
    // (A forborne account has no review due: nothing on the clock moves it.)
    assert_eq!(status().await, "forborne");
    assert_eq!(staff("end-forbearance")["status"], "in_arrears");
    assert_eq!(status().await, "in_arrears");
    let closed = staff("write-off");
    assert_eq!(closed["status"], "closed");
    assert_eq!(closed["arrangements"], 3);
    // What the loan owed (its principal, and the interest of the month it
    // ran, posted to date) is given up: the loan's accounts are at nought
    // and the lender's write-offs hold it.
    let trial: Value =
        serde_json::from_str(&cli(&app._site, &["ledger", "trial-balance", "--json"])).unwrap();
    assert_eq!(trial["total_debits_pence"], trial["total_credits_pence"]);
    let balance = |name: String| {
        trial["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["account"] == name.as_str())
            .map_or(0, |a| a["balance_pence"].as_i64().unwrap())
    };
    let principal = balance(format!("loan:{account}:principal"));
    let interest = balance(format!("loan:{account}:interest"));
    assert_eq!((principal, interest), (0, 0), "{trial}");
    let accrued = balance("lender:interest_income".to_owned());
    assert!(
        accrued > 0,
        "a month's interest was posted before the write-off"
    );
    let drawn = -balance("lender:funding".to_owned());
    assert_eq!(
        balance("lender:write_offs".to_owned()),
        drawn + accrued,
        "{trial}"
    );
    let refused = cli_refused(
        &app._site,
        &[
            "accounts",
            "write-off",
            &account,
            "--by",
            "Grace Hopper",
            "--note",
            "again",
        ],
    );
    assert!(refused.contains("Closed"), "{refused}");
    // The CLI is another process: its events reach this instance's event
    // list a moment after its commits.
    eventually_async("the CLI's account events are listed", || async {
        account_moves(&app, &key, &account)
            .await
            .last()
            .is_some_and(|(kind, _)| kind == "account.closed")
    })
    .await;
    let moves = account_moves(&app, &key, &account).await;
    assert_eq!(
        moves[moves.len() - 3..],
        [
            ("account.updated", "forborne"),
            ("account.updated", "in_arrears"),
            ("account.closed", "closed"),
        ]
        .map(|(t, s)| (t.to_owned(), s.to_owned()))
    );
}

/// The seed's sub-limit on link creation, 10 per second, below the platform
/// tier: the eleventh link within one instant is 429 with `Retry-After`.
#[tokio::test]
async fn link_creation_is_limited_to_ten_a_second() {
    let app = rest_app().await;
    let (key, account) = crate::rest_accounts::funded_at(
        &app,
        SCOPES,
        lendhub_domain::partner::project::Tier::Launch,
    )
    .await;
    app.clock.freeze();
    let mut statuses = Vec::new();
    for n in 0..11 {
        let r = reply(
            app.http
                .post(format!("{}{TEST}/payments/links", app.hub))
                .bearer_auth(&key)
                .header("idempotency-key", format!("limited-{n:04}"))
                .json(&json!({"account_id": account, "amount_pence": 100}))
                .send()
                .await
                .unwrap(),
        )
        .await;
        statuses.push(r.status.as_u16());
        if r.status == 429 {
            assert_hub_error(&r, 429, "rate_limited");
            assert!(!r.header("retry-after").is_empty());
        }
    }
    assert_eq!(statuses[..10], [201; 10]);
    assert_eq!(statuses[10], 429);
}
