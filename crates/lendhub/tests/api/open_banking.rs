//! Account information over UK Open Banking (issue #46 item 2): the live
//! environment reaching a model bank that runs as its own process,
//! configured by `counterparties.live.open_banking.banks.<id>`; the hosted
//! journey in Chromium through the bank's consent page and lendhub's
//! callback; a bank down when the consent is asked for and a payer who
//! declines at the bank, each a page that lets them go on; and every JSON
//! body both sides exchanged checked against the standard's OpenAPI
//! documents.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::rest_journey::{EMAIL, PASSWORD, applicant};
use crate::rest_tier::{api_key, rest_get, rest_partner, rest_post as post};
use crate::support::process::Simulator;
use crate::support::*;

const CLIENT: (&str, &str) = ("lendhub-live", "model-bank-secret");

/// `lendhub simulate bank`, its own process.
struct ModelBank {
    // Runs as long as this lives.
    _process: Simulator,
    url: String,
}

impl ModelBank {
    /// Sending lendhub's payers back to `hub`, and its notifications there
    /// as the bank `acme_bank`.
    fn launch(hub: &str) -> Self {
        let process = Simulator::launch(
            &[
                "bank",
                "--addr",
                "127.0.0.1:0",
                "--client-id",
                CLIENT.0,
                "--redirect-uri",
                &format!("{hub}/open-banking/callback"),
                "--event-notification-url",
                &format!("{hub}/open-banking/events/acme_bank"),
            ],
            ("LENDHUB_MODEL_CLIENT_SECRET", CLIENT.1),
            "model bank listening on",
        );
        Self {
            url: process.url.clone(),
            _process: process,
        }
    }

    /// This bank, configured as `acme_bank`.
    fn acme(&self) -> lendhub::config::Bank {
        lendhub::config::Bank {
            name: "Acme Bank".into(),
            discovery_url: format!("{}/.well-known/openid-configuration", self.url),
            api_base_url: format!("{}/open-banking/v3.1", self.url),
            client_id: CLIENT.0.into(),
            client_secret: CLIENT.1.to_owned().into(),
        }
    }

    async fn exchanges(&self) -> Value {
        reqwest::Client::new()
            .get(format!("{}/_model/exchanges", self.url))
            .basic_auth(CLIENT.0, Some(CLIENT.1))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// A loopback port free now, for a hub whose public URL the bank must know
/// before the hub starts.
pub(crate) fn free_port() -> u16 {
    crate::support::unclaimed_port()
}

/// A model bank in its own process, and the REST tier's configuration of
/// a hub on the port the bank sends payers back to.
async fn beside_a_bank() -> (ModelBank, lendhub::config::Config, Site) {
    let port = free_port();
    let hub = format!("http://127.0.0.1:{port}");
    let bank = ModelBank::launch(&hub);
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    config.hub.addr = format!("127.0.0.1:{port}").parse().unwrap();
    config.hub.public_url = Some(hub.parse().unwrap());
    (bank, config, site)
}

#[tokio::test]
async fn the_live_journey_reads_the_account_at_a_bank_in_its_own_process() {
    let (bank, mut config, site) = beside_a_bank().await;
    config
        .counterparties
        .live
        .open_banking
        .banks
        .insert("acme_bank".into(), bank.acme());
    paying(&mut config.counterparties.live.open_banking);
    let app = App::spawn_with(config, site).await;
    applicant(&app).await;
    let (client, _) =
        rest_partner(&app, "applications.read applications.write", Tier::Platform).await;
    let live = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let created = post(
        &app,
        "/partner/v1/applications",
        &live,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 24, "redirect_uri": "https://partner.example/done"}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();

    let r = python_json(
        "apply_browser.py",
        vec![
            (
                "START_URL",
                created.body["handoff_url"].as_str().unwrap().to_owned(),
            ),
            ("EMAIL", EMAIL.to_owned()),
            ("PASSWORD", PASSWORD.to_owned()),
            ("DOB", "1985-04-12".to_owned()),
            ("BANK", "acme_bank".to_owned()),
            ("ACCOUNT", "strong".to_owned()),
            ("SIGN", "no".to_owned()),
            ("MODEL_BANK", bank.url.clone()),
            ("MODEL_BANK_CLIENT", format!("{}:{}", CLIENT.0, CLIENT.1)),
            ("DECLINE_FIRST", "yes".to_owned()),
        ],
    )
    .await;
    // The bank down when asked for the consent: the choice again, saying so.
    assert!(
        r["bank_down"]
            .as_str()
            .unwrap()
            .contains("could not reach Acme Bank"),
        "{r}"
    );
    // Declined at the bank: back at the choice, told what happened.
    assert!(
        r["bank_declined"]
            .as_str()
            .unwrap()
            .contains("did not give access at Acme Bank"),
        "{r}"
    );
    // Then approved: the account read, the decision made on its cash flow.
    assert_eq!(r["bank_url"], format!("{}/authorize", bank.url), "{r}");
    assert_eq!(r["outcome"], "approved", "{r}");
    let stored = rest_get(&app, &format!("/partner/v1/applications/{id}"), Some(&live)).await;
    assert_eq!(stored.body["status"], "approved", "{}", stored.body);

    // Everything exchanged, both ways, is what the standard describes.
    let exchanges = bank.exchanges().await;
    let checked =
        open_banking_conformance(app._site.path(), &exchanges, "account-info-openapi.json").await;
    assert_eq!(checked["problems"], json!([]), "{checked}");
    assert_eq!(
        checked["operations"],
        json!([
            "GET /accounts",
            "GET /accounts/{AccountId}/balances",
            "GET /accounts/{AccountId}/transactions",
            "POST /account-access-consents"
        ]),
        "{checked}"
    );
    // A year of transactions is more than one page: Links.Next was followed.
    let pages = exchanges
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["operation"] == "GET /accounts/{AccountId}/transactions")
        .count();
    assert!(pages >= 2, "{pages} pages of transactions read");
    // Every request carried the standard's interaction id and a token.
    for x in exchanges.as_array().unwrap() {
        assert!(x["headers"]["x-fapi-interaction-id"].is_string(), "{x}");
        assert_eq!(x["headers"]["authorization"], "present", "{x}");
    }
}

#[tokio::test]
async fn a_white_label_partner_connects_the_applicants_bank_in_live() {
    use crate::rest_bank_connections::{application, connect, follow_callback};
    use crate::support::process::cli;
    let (bank, mut config, site) = beside_a_bank().await;
    config
        .counterparties
        .live
        .open_banking
        .banks
        .insert("acme_bank".into(), bank.acme());
    paying(&mut config.counterparties.live.open_banking);
    let app = App::spawn_with(config, site).await;
    let (client, _) =
        rest_partner(&app, "applications.read applications.write", Tier::Platform).await;
    let live = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let switched = cli(
        &app._site,
        &["partner", "clients", "set-white-label", &client, "on"],
    );
    assert!(switched.contains("\"white_label\":true"), "{switched}");
    let banks = rest_get(&app, "/partner/v1/banks", Some(&live)).await;
    assert_eq!(
        banks.body["data"],
        json!([{"id": "acme_bank", "object": "bank", "name": "Acme Bank"}]),
        "the live environment offers the lender's banks: {}",
        banks.body
    );
    let id = application(&app, "/partner/v1", &live).await;
    let body = json!({"bank": "acme_bank", "return_url": "https://partner.example/back"});
    propagated("the white-label switch reaches the server", || async {
        connect(&app, "/partner/v1", &live, &id, json!({}))
            .await
            .status
            == 422
    })
    .await;
    let made = connect(&app, "/partner/v1", &live, &id, body).await;
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(made.body["livemode"], true);
    let authorise = made.body["authorisation_url"].as_str().unwrap();
    assert!(
        authorise.starts_with(&format!("{}/authorize?", bank.url)),
        "{authorise}"
    );
    let callback = consent_at_bank(authorise, "approve", "strong").await;
    let (status, back) = follow_callback(&callback).await;
    assert_eq!(status, 303, "{back}");
    let bcn = made.body["id"].as_str().unwrap();
    assert_eq!(
        back,
        format!("https://partner.example/back?bank_connection={bcn}&status=connected")
    );
    let submitted = post(
        &app,
        &format!("/partner/v1/applications/{id}/submit"),
        &live,
        json!({"consents": {"credit_search": true, "open_banking": true, "terms": true},
               "bank_connection": bcn}),
    )
    .await;
    assert_eq!(submitted.status, 200, "{}", submitted.body);
    assert_eq!(submitted.body["status"], "approved", "{}", submitted.body);

    // Each hop to the bank is timed and counted for the operator.
    let ops = app.server.as_ref().unwrap().ops_addr;
    let metrics = reqwest::get(format!("http://{ops}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for operation in [
        "POST /account-access-consents",
        "POST token_endpoint (authorization_code)",
        "GET /accounts",
        "GET /accounts/{AccountId}/transactions",
    ] {
        let labels = format!("counterparty=\"open_banking\",operation=\"{operation}\"");
        assert!(
            metrics.contains(&format!(
                "counterparty_request_duration_seconds_count{{{labels}}}"
            )),
            "{operation}: {metrics}"
        );
        assert!(
            metrics.contains(&format!(
                "counterparty_requests_total{{{labels},outcome=\"answered\"}}"
            )),
            "{operation}: {metrics}"
        );
    }

    // The bank saw an account-access consent and the account's reads, as
    // the standard describes them.
    let checked = open_banking_conformance(
        app._site.path(),
        &bank.exchanges().await,
        "account-info-openapi.json",
    )
    .await;
    assert_eq!(checked["problems"], json!([]), "{checked}");
    assert_eq!(
        checked["operations"],
        json!([
            "GET /accounts",
            "GET /accounts/{AccountId}/balances",
            "GET /accounts/{AccountId}/transactions",
            "POST /account-access-consents"
        ]),
        "{checked}"
    );
}

/// The model bank's admin endpoints, with the client's credentials.
async fn model_admin(bank: &ModelBank, method: reqwest::Method, path: &str, body: Option<Value>) {
    model_admin_answer(bank, method, path, body).await;
}

/// `model_admin`, and what it answered (JSON, or null).
async fn model_admin_answer(
    bank: &ModelBank,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> Value {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", bank.url))
        .basic_auth(CLIENT.0, Some(CLIENT.1));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status();
    assert!(status.is_success(), "{path}: {status}");
    answer.json().await.unwrap_or(Value::Null)
}

/// `counterparties.test.open_banking` naming `bank` as `acme_bank`, with
/// the model signing key and a collection account.
fn pay_at(config: &mut lendhub::config::Config, bank: &ModelBank) {
    let ob = &mut config.counterparties.test.open_banking;
    paying(ob);
    ob.banks.insert("acme_bank".into(), bank.acme());
}

/// What an environment with a real bank needs for payments: the key its
/// requests are signed with (the model key, which the model bank trusts)
/// and the account payments go to.
pub(crate) fn paying(ob: &mut lendhub::config::OpenBanking) {
    ob.message_signing = Some(lendhub::config::MessageSigning {
        key_file: format!(
            "{}/../models/keys/lendhub-signing.pem",
            env!("CARGO_MANIFEST_DIR")
        )
        .into(),
        kid: lendhub_models::keys::LENDHUB_SIGNING_KID.into(),
        issuer: lendhub_models::keys::LENDHUB_SIGNING_ISS.into(),
    });
    ob.collection_account = Some(lendhub::config::CollectionAccount {
        name: "Lendhub Collections Ltd".into(),
        sort_code: "601613".into(),
        account_number: "31926819".into(),
    });
}

/// A client that stops at each redirect, so the test holds the callback.
fn stepping() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The payer chooses Acme Bank for `url` and approves paying from
/// `account` on its page: lendhub's callback address, with the code and
/// state, which the bank sends them back to.
async fn authorised_at_acme(app: &App, url: &str, account: &str) -> String {
    let http = stepping();
    let chosen = http
        .post(url)
        .form(&[("bank", "acme_bank")])
        .send()
        .await
        .unwrap();
    assert_eq!(chosen.status(), 303, "{}", chosen.text().await.unwrap());
    let at_bank = chosen.headers()["location"].to_str().unwrap().to_owned();
    let consent = http.get(&at_bank).send().await.unwrap();
    let page = consent.text().await.unwrap();
    let token = consent_form_token(&page);
    let bank = url::Url::parse(&at_bank)
        .unwrap()
        .origin()
        .ascii_serialization();
    let back = http
        .post(format!("{bank}/authorize"))
        .form(&[
            ("page", token.as_str()),
            ("decision", "approve"),
            ("account", account),
        ])
        .send()
        .await
        .unwrap();
    let callback = back.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        callback.starts_with(&format!("{}/open-banking/callback?", app.hub)),
        "{callback}"
    );
    callback
}

/// The page a followed GET of `url` ends at: (status, HTML).
async fn landing(app: &App, url: &str) -> (u16, String) {
    let r = app.http.get(url).send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test]
async fn the_pay_page_pays_at_a_bank_in_its_own_process_through_each_failure() {
    use crate::rest_accounts::funded_with;
    use crate::rest_payments::{SCOPES, payment};
    let (bank, mut config, site) = beside_a_bank().await;
    pay_at(&mut config, &bank);
    let app = App::spawn_with(config, site).await;
    let (key, account) = funded_with(&app, SCOPES).await;

    // The bank is offered, and the page's form may send the payer there.
    let (id, url) = new_link(&app, &key, &account, 1).await;
    let page = app.http.get(&url).send().await.unwrap();
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        csp.contains(&format!("form-action 'self' {}", bank.url)),
        "{csp}"
    );
    assert!(page.text().await.unwrap().contains("Acme Bank"));

    // Authorised; the callback comes twice (a reload, a replayed
    // redirect): one payment at the bank, one `payment.processing`.
    let callback = authorised_at_acme(&app, &url, "strong").await;
    let (status, first) = landing(&app, &callback).await;
    assert_eq!(status, 200, "{first}");
    assert!(first.contains("data-status=\"processing\""), "{first}");
    let (status, again) = landing(&app, &callback).await;
    assert_eq!(status, 200, "{again}");
    assert!(again.contains("data-status=\"processing\""), "{again}");
    let submitted = |exchanges: &Value| {
        exchanges
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["operation"] == "POST /domestic-payments")
            .count()
    };
    assert_eq!(submitted(&bank.exchanges().await), 1);
    assert_eq!(payment(&app, &key, &id).await["payer_bank"], "acme_bank");

    // The bank down when next asked: still processing, asked again later;
    // back up, it says the payment settled, and only then is it paid.
    model_admin(
        &bank,
        reqwest::Method::PUT,
        "/_model/outage",
        Some(json!({"status": 503})),
    )
    .await;
    app.advance(time::Duration::minutes(1));
    eventually_async("the bank is asked while down", || async {
        refused(&bank).await > 0
    })
    .await;
    assert_eq!(payment(&app, &key, &id).await["status"], "processing");
    model_admin(&bank, reqwest::Method::DELETE, "/_model/outage", None).await;
    app.advance(time::Duration::minutes(5));
    eventually_async("the payment settles", || async {
        payment(&app, &key, &id).await["status"] == "paid"
    })
    .await;

    // The bank down when asked for a consent: the choice again, saying so,
    // and the payment still open.
    let (down_id, down_url) = new_link(&app, &key, &account, 2).await;
    model_admin(
        &bank,
        reqwest::Method::PUT,
        "/_model/outage",
        Some(json!({"status": 503})),
    )
    .await;
    let r = stepping()
        .post(&down_url)
        .form(&[("bank", "acme_bank")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 422);
    let text = r.text().await.unwrap();
    assert!(text.contains("could not reach Acme Bank"), "{text}");
    assert_eq!(payment(&app, &key, &down_id).await["status"], "pending");
    model_admin(&bank, reqwest::Method::DELETE, "/_model/outage", None).await;

    // Authorised, then the bank down when the payment is submitted:
    // failed, bank_unavailable, and the page says so.
    let callback = authorised_at_acme(&app, &down_url, "strong").await;
    model_admin(
        &bank,
        reqwest::Method::PUT,
        "/_model/outage",
        Some(json!({"status": 503})),
    )
    .await;
    let (_, page) = landing(&app, &callback).await;
    assert!(page.contains("data-reason=\"bank_unavailable\""), "{page}");
    model_admin(&bank, reqwest::Method::DELETE, "/_model/outage", None).await;
    let failed = payment(&app, &key, &down_id).await;
    assert_eq!(failed["failure_reason"], "bank_unavailable", "{failed}");

    // A state nobody issued, naming a real payment: nothing shown of it,
    // nothing changed.
    let (status, page) = landing(
        &app,
        &format!(
            "{}/open-banking/callback?code=x&state={down_id}.forged",
            app.hub
        ),
    )
    .await;
    assert_eq!(status, 404, "{page}");
    assert!(!page.contains("bank_unavailable"), "{page}");
    // Nor for an open payment: its pay page (whose address is the link's
    // credential) is not given away.
    let (open_id, _) = new_link(&app, &key, &account, 3).await;
    let (status, page) = landing(
        &app,
        &format!(
            "{}/open-banking/callback?error=access_denied&state={open_id}.forged",
            app.hub
        ),
    )
    .await;
    assert_eq!(status, 404, "{page}");
    assert!(!page.contains("/pay/pay_"), "{page}");
    assert_eq!(payment(&app, &key, &open_id).await["status"], "pending");
    let (status, _) = landing(
        &app,
        &format!("{}/open-banking/callback?state=nothing", app.hub),
    )
    .await;
    assert_eq!(status, 404);

    // Everything lendhub and the bank exchanged is what the standard says.
    let exchanges = bank.exchanges().await;
    let checked = open_banking_conformance(
        app._site.path(),
        &exchanges,
        "payment-initiation-openapi.json",
    )
    .await;
    assert_eq!(checked["problems"], json!([]), "{checked}");
    for x in exchanges.as_array().unwrap() {
        if x["operation"].as_str().unwrap().starts_with("POST") {
            assert!(x["headers"]["x-jws-signature"].is_string(), "{x}");
            assert!(x["headers"]["x-idempotency-key"].is_string(), "{x}");
        }
    }
}

/// How many requests the bank refused in its outage so far.
async fn refused(bank: &ModelBank) -> u64 {
    let outage: Value = reqwest::Client::new()
        .get(format!("{}/_model/outage", bank.url))
        .basic_auth(CLIENT.0, Some(CLIENT.1))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    outage["refused"].as_u64().unwrap()
}

/// A new £25 payment link on `account`: (its id, its URL).
async fn new_link(app: &App, key: &str, account: &str, n: usize) -> (String, String) {
    let r = crate::rest_payments::link(
        app,
        key,
        &format!("acme-link-{n}"),
        json!({"account_id": account, "amount_pence": 2_500, "reference": format!("ACME-{n}")}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    (
        r.body["id"].as_str().unwrap().to_owned(),
        r.body["url"].as_str().unwrap().to_owned(),
    )
}

/// The bank's `DomesticPaymentId` for the newest payment it accepted.
async fn newest_bank_payment(bank: &ModelBank) -> String {
    let exchanges = bank.exchanges().await;
    exchanges
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|x| x["operation"] == "POST /domestic-payments" && x["status"] == 201)
        .and_then(|x| x["response"]["Data"]["DomesticPaymentId"].as_str())
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn the_banks_signed_notification_settles_a_payment_without_waiting_to_ask() {
    use crate::rest_accounts::funded_with;
    use crate::rest_payments::{SCOPES, payment};
    let (bank, mut config, site) = beside_a_bank().await;
    pay_at(&mut config, &bank);
    let app = App::spawn_with(config, site).await;
    let (key, account) = funded_with(&app, SCOPES).await;
    let paid_events = || async {
        rest_get(&app, "/sandbox/v1/events?type=payment.paid", Some(&key))
            .await
            .body["data"]
            .as_array()
            .unwrap()
            .len()
    };

    // Paid at the bank, processing: lendhub would next ask in 10 s, and
    // its clock does not move in this test.
    let (id, url) = new_link(&app, &key, &account, 1).await;
    let callback = authorised_at_acme(&app, &url, "strong").await;
    let (_, page) = landing(&app, &callback).await;
    assert!(page.contains("data-status=\"processing\""), "{page}");
    let at_bank = newest_bank_payment(&bank).await;

    // The bank settles it and says so: lendhub verified the token, read the
    // payment and booked it before answering 202.
    let path = format!("/_model/payments/{at_bank}/settle");
    let answer = model_admin_answer(&bank, reqwest::Method::POST, &path, None).await;
    assert_eq!(answer["notified"], 202, "{answer}");
    let paid = payment(&app, &key, &id).await;
    assert_eq!(paid["status"], "paid", "{paid}");
    assert_eq!(paid_events().await, 1);

    // Said again: one payment.paid still.
    let path = format!("/_model/payments/{at_bank}/notify");
    let answer = model_admin_answer(&bank, reqwest::Method::POST, &path, None).await;
    assert_eq!(answer["notified"], 202, "{answer}");
    assert_eq!(payment(&app, &key, &id).await["status"], "paid");
    assert_eq!(paid_events().await, 1);

    // From an account without the money: the bank's rejection, notified,
    // fails the payment at once.
    let (low_id, low_url) = new_link(&app, &key, &account, 2).await;
    let callback = authorised_at_acme(&app, &low_url, "low").await;
    landing(&app, &callback).await;
    assert_eq!(payment(&app, &key, &low_id).await["status"], "processing");
    let path = format!(
        "/_model/payments/{}/settle",
        newest_bank_payment(&bank).await
    );
    let answer = model_admin_answer(&bank, reqwest::Method::POST, &path, None).await;
    assert_eq!(answer["notified"], 202, "{answer}");
    let failed = payment(&app, &key, &low_id).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["failure_reason"], "insufficient_funds", "{failed}");

    // Not the bank's: a token signed with another key (lendhub's own, under
    // the bank's kid), not a token, or for a bank lendhub does not know.
    let events = format!("{}/open-banking/events/acme_bank", app.hub);
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::PS256);
    header.kid = Some("model-bank-signing".to_owned());
    let forged = jsonwebtoken::encode(
        &header,
        &json!({"iss": bank.url, "aud": CLIENT.0, "sub": "x", "iat": 0, "jti": "j",
                "txn": "t", "toe": 0, "events": {}}),
        &jsonwebtoken::EncodingKey::from_rsa_pem(
            lendhub_models::keys::LENDHUB_SIGNING_PEM.as_bytes(),
        )
        .unwrap(),
    )
    .unwrap();
    for body in [forged.as_str(), "not a token"] {
        let r = app
            .http
            .post(&events)
            .header("content-type", "application/jwt")
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], "signature_invalid", "{body}");
    }
    let r = app
        .http
        .post(format!("{}/open-banking/events/no_such_bank", app.hub))
        .body(forged)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);

    // The notifications are the standard's: each token's claims checked
    // against OBEventNotification1, with the headers the operation needs.
    let exchanges = bank.exchanges().await;
    let notified: Vec<&Value> = exchanges
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["operation"] == "POST /event-notifications")
        .collect();
    assert_eq!(notified.len(), 3, "{notified:?}");
    let checked = open_banking_conformance(
        app._site.path(),
        &exchanges,
        "payment-initiation-openapi.json:event-notifications-openapi.json",
    )
    .await;
    assert_eq!(checked["problems"], json!([]), "{checked}");
}
