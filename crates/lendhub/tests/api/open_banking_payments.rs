//! Payment initiation over UK Open Banking (issue #46 item 3), the adapter
//! against the model bank over HTTP: a payment consent, the payer's
//! approval on the bank's consent page, the payment submitted under it and
//! followed to settlement or rejection; every POST signed (`x-jws-signature`)
//! and idempotent (`x-idempotency-key`), every payment answer's signature
//! checked; and every JSON body both sides exchanged checked against the
//! standard's OpenAPI document.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::money::Money;
use lendhub_domain::open_banking::pis::Progress;
use lendhub_domain::open_banking::vrp::PeriodType;
use lendhub_domain::servicing::collection::FailureReason;
use lendhub_hub::counterparties::{
    BankConnection, BankMandates, BankPayments, CollectRefused, CollectionAccount, KeepTokens,
    MandateAtBank, MandateTerms, MessageSigner, OpenBankingPis, OpenBankingVrp, PayerTokens,
    PaymentOrder, SubmitRefused, TokensNotKept,
};
use lendhub_models::bank::Registration;
use lendhub_models::keys;
use lendhub_system::ShiftedClock;
use serde_json::{Value, json};

use crate::support::*;

const CLIENT: (&str, &str) = ("lendhub", "model-bank-secret");
const REDIRECT: &str = "http://lendhub.test/open-banking/callback";

struct Bank {
    url: String,
    pis: OpenBankingPis,
    vrp: OpenBankingVrp,
    /// Both the bank's and the adapters' time.
    clock: Arc<ShiftedClock>,
    http: reqwest::Client,
}

impl Bank {
    async fn start() -> Self {
        let registration = Registration::lendhub(
            CLIENT.0.to_owned(),
            CLIENT.1.to_owned(),
            vec![REDIRECT.to_owned()],
        );
        let clock = ShiftedClock::new();
        let bank_clock = clock.clone();
        let (addr, ()) = lendhub_models::spawn_at(SocketAddr::from(([127, 0, 0, 1], 0)), |base| {
            (
                lendhub_models::bank::router_on(base, registration, bank_clock),
                (),
            )
        })
        .await
        .unwrap();
        let url = format!("http://{addr}");
        let connection = BankConnection {
            id: "model_bank".to_owned(),
            name: "Model Bank".to_owned(),
            discovery_url: format!("{url}/.well-known/openid-configuration"),
            api_base_url: format!("{url}/open-banking/v3.1"),
            client_id: CLIENT.0.to_owned(),
            client_secret: CLIENT.1.to_owned().into(),
        };
        let signer = MessageSigner::from_pem(
            keys::LENDHUB_SIGNING_PEM,
            keys::LENDHUB_SIGNING_KID,
            keys::LENDHUB_SIGNING_ISS,
        )
        .unwrap();
        let creditor = CollectionAccount {
            name: "Lendhub Collections Ltd".to_owned(),
            sort_code_account_number: "60161331926819".to_owned(),
        };
        let pis = OpenBankingPis::new(
            vec![connection.clone()],
            creditor.clone(),
            signer.clone(),
            REDIRECT.to_owned(),
            Duration::from_secs(10),
            clock.clone(),
        )
        .unwrap();
        let vrp = OpenBankingVrp::new(
            vec![connection],
            creditor,
            signer,
            REDIRECT.to_owned(),
            Duration::from_secs(10),
            clock.clone(),
        )
        .unwrap();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        Self {
            url,
            pis,
            vrp,
            clock,
            http,
        }
    }

    /// The payer, on the bank's consent page, answers with `decision`
    /// paying from the test account `account`: the code the bank sends
    /// back (or its error), and the state it echoes.
    async fn payer_answers(
        &self,
        authorise_url: &str,
        account: &str,
        decision: &str,
    ) -> (Value, String) {
        let location = consent_at_bank(authorise_url, decision, account).await;
        assert!(location.starts_with(REDIRECT), "{location}");
        let back = url::Url::parse(&location).unwrap();
        let pairs: serde_json::Map<String, Value> = back
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
            .collect();
        let state = pairs["state"].as_str().unwrap().to_owned();
        (Value::Object(pairs), state)
    }

    async fn admin(&self, method: reqwest::Method, path: &str) -> u16 {
        self.http
            .request(method, format!("{}{path}", self.url))
            .basic_auth(CLIENT.0, Some(CLIENT.1))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    /// The client's own token at the bank, scope `payments`.
    async fn client_token(&self) -> String {
        let answer: Value = self
            .http
            .post(format!("{}/token", self.url))
            .basic_auth(CLIENT.0, Some(CLIENT.1))
            .form(&[("grant_type", "client_credentials"), ("scope", "payments")])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        answer["access_token"].as_str().unwrap().to_owned()
    }

    async fn exchanges(&self) -> Value {
        self.http
            .get(format!("{}/_model/exchanges", self.url))
            .basic_auth(CLIENT.0, Some(CLIENT.1))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// A payment from `account`, authorised by the payer and submitted.
    async fn paid_from(&self, id: &str, account: &str) -> lendhub_hub::counterparties::BankPayment {
        self.authorised_and_submitted(id, account).await.0
    }

    /// `paid_from`, with the consent and the code it was submitted under.
    async fn authorised_and_submitted(
        &self,
        id: &str,
        account: &str,
    ) -> (lendhub_hub::counterparties::BankPayment, String, String) {
        let order = order(id);
        let state = format!("{id}.state");
        let asked = self
            .pis
            .request_payment("model_bank", &order, (&state, "nonce-1"))
            .await
            .unwrap();
        let (back, echoed) = self
            .payer_answers(&asked.authorise_url, account, "approve")
            .await;
        assert_eq!(echoed, state);
        let code = back["code"].as_str().unwrap();
        let submitted = self
            .pis
            .submit_payment("model_bank", &order, &asked.consent_id, (code, "nonce-1"))
            .await
            .unwrap();
        (submitted, asked.consent_id, code.to_owned())
    }
}

fn order(id: &str) -> PaymentOrder<'_> {
    PaymentOrder {
        id,
        amount: Money::pence(12_345),
        reference: "LH-7Q2X-INSTALMENT-3",
        due_on: None,
    }
}

#[tokio::test]
async fn a_payment_the_payer_authorises_is_submitted_and_followed_to_settlement() {
    let bank = Bank::start().await;
    let id = "pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0";
    let (submitted, consent_id, code) = bank.authorised_and_submitted(id, "strong").await;
    assert_eq!(submitted.progress, Progress::InProgress);
    // Asked for with the consent (`ReadRefundAccount`): the account that
    // paid, where a refund would go.
    let strong = lendhub_domain::open_banking::test_accounts::find("strong").unwrap();
    assert_eq!(
        submitted.payer_account.as_deref(),
        Some(strong.sort_code_account_number)
    );
    let read = bank
        .pis
        .payment_status("model_bank", &submitted.domestic_payment_id)
        .await
        .unwrap();
    assert_eq!(read.progress, Progress::Settled);
    assert_eq!(read.domestic_payment_id, submitted.domestic_payment_id);

    // The code is spent: submitting again with it (as after a lost answer)
    // is the consent not holding, and the bank made one payment.
    let code_reused = bank
        .pis
        .submit_payment("model_bank", &order(id), &consent_id, (&code, "nonce-1"))
        .await;
    assert!(
        matches!(code_reused, Err(SubmitRefused::Consent)),
        "{code_reused:?}"
    );
    let exchanges = bank.exchanges().await;
    let payments = exchanges
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["operation"] == "POST /domestic-payments")
        .count();
    assert_eq!(payments, 1);

    // Every POST was signed and carried an idempotency key; every request an
    // interaction id and a token.
    for x in exchanges.as_array().unwrap() {
        assert!(x["headers"]["x-fapi-interaction-id"].is_string(), "{x}");
        assert_eq!(x["headers"]["authorization"], "present", "{x}");
        if x["operation"].as_str().unwrap().starts_with("POST") {
            assert!(x["headers"]["x-idempotency-key"].is_string(), "{x}");
            assert!(x["headers"]["x-jws-signature"].is_string(), "{x}");
        }
    }

    // What both sides exchanged is what the standard describes.
    let site = Site::new().await;
    let checked =
        open_banking_conformance(site.path(), &exchanges, "payment-initiation-openapi.json").await;
    assert_eq!(checked["problems"], json!([]), "{checked}");
    assert_eq!(
        checked["operations"],
        json!([
            "GET /domestic-payments/{DomesticPaymentId}",
            "POST /domestic-payment-consents",
            "POST /domestic-payments"
        ]),
        "{checked}"
    );
}

#[tokio::test]
async fn a_payment_the_bank_rejects_after_authorisation_fails_for_insufficient_funds() {
    let bank = Bank::start().await;
    // From the low account: accepted, then rejected when next read.
    let low = bank
        .paid_from("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9W1", "low")
        .await;
    assert_eq!(low.progress, Progress::InProgress);
    let read = bank
        .pis
        .payment_status("model_bank", &low.domestic_payment_id)
        .await
        .unwrap();
    assert_eq!(
        read.progress,
        Progress::Failed(FailureReason::InsufficientFunds)
    );
    // From a closed account: rejected at once.
    let closed = bank
        .paid_from("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9W2", "closed")
        .await;
    assert_eq!(
        closed.progress,
        Progress::Failed(FailureReason::InsufficientFunds)
    );
}

#[tokio::test]
async fn a_payment_the_bank_holds_stays_in_progress_until_it_moves() {
    let bank = Bank::start().await;
    let held = bank
        .paid_from("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9W3", "strong")
        .await;
    let path = format!("/_model/payments/{}/hold", held.domestic_payment_id);
    assert_eq!(bank.admin(reqwest::Method::POST, &path).await, 204);
    for _ in 0..3 {
        let read = bank
            .pis
            .payment_status("model_bank", &held.domestic_payment_id)
            .await
            .unwrap();
        assert_eq!(read.progress, Progress::InProgress);
    }
    assert_eq!(bank.admin(reqwest::Method::DELETE, &path).await, 204);
    let read = bank
        .pis
        .payment_status("model_bank", &held.domestic_payment_id)
        .await
        .unwrap();
    assert_eq!(read.progress, Progress::Settled);
}

#[tokio::test]
async fn the_bank_refuses_an_unsigned_or_forged_payment_request_and_a_declined_consent() {
    let bank = Bank::start().await;
    let token = &bank.client_token().await;
    let body = json!({"Data": {"Initiation": {
        "InstructionIdentification": "x", "EndToEndIdentification": "x",
        "InstructedAmount": {"Amount": "1.00", "Currency": "GBP"},
        "CreditorAccount": {"SchemeName": "UK.OBIE.SortCodeAccountNumber", "Identification": "60161331926819", "Name": "L"}}},
        "Risk": {}});
    let consents = format!(
        "{}/open-banking/v3.1/pisp/domestic-payment-consents",
        bank.url
    );
    let unsigned = bank
        .http
        .post(&consents)
        .bearer_auth(token)
        .header("x-idempotency-key", "k1")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(unsigned.status(), 400);
    let error: Value = unsigned.json().await.unwrap();
    assert_eq!(
        error["Errors"][0]["ErrorCode"], "UK.OBIE.Signature.Missing",
        "{error}"
    );
    // A signature over another body does not verify.
    let header = lendhub_domain::open_banking::jws::Protected::ps256("k", "i", 1).encoded();
    let forged = bank
        .http
        .post(&consents)
        .bearer_auth(token)
        .header("x-idempotency-key", "k2")
        .header(
            "x-jws-signature",
            lendhub_domain::open_banking::jws::detached(&header, "AAAA"),
        )
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 400);
    let error: Value = forged.json().await.unwrap();
    assert_eq!(
        error["Errors"][0]["ErrorCode"], "UK.OBIE.Signature.Invalid",
        "{error}"
    );

    // The payer declines: no code comes back, only the error.
    let asked = bank
        .pis
        .request_payment(
            "model_bank",
            &order("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9W4"),
            ("s", "n"),
        )
        .await
        .unwrap();
    let (back, _) = bank
        .payer_answers(&asked.authorise_url, "strong", "decline")
        .await;
    assert_eq!(back["error"], "access_denied", "{back}");
    assert!(back.get("code").is_none(), "{back}");
}

#[tokio::test]
async fn the_bank_answers_a_repeated_idempotency_key_once_and_refuses_it_for_another_body() {
    let bank = Bank::start().await;
    let token = bank.client_token().await;
    let signer = MessageSigner::from_pem(
        keys::LENDHUB_SIGNING_PEM,
        keys::LENDHUB_SIGNING_KID,
        keys::LENDHUB_SIGNING_ISS,
    )
    .unwrap();
    let consent = |amount: &str| {
        json!({"Data": {"Initiation": {
            "InstructionIdentification": "pay_1", "EndToEndIdentification": "pay_1",
            "InstructedAmount": {"Amount": amount, "Currency": "GBP"},
            "CreditorAccount": {"SchemeName": "UK.OBIE.SortCodeAccountNumber", "Identification": "60161331926819", "Name": "L"}}},
            "Risk": {}})
        .to_string()
    };
    let post = |body: String| {
        let signature = signer.sign(body.as_bytes(), 1_764_000_000).unwrap();
        bank.http
            .post(format!(
                "{}/open-banking/v3.1/pisp/domestic-payment-consents",
                bank.url
            ))
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .header("x-idempotency-key", "the-same-key")
            .header("x-jws-signature", signature)
            .body(body)
            .send()
    };
    let first = post(consent("10.00")).await.unwrap();
    assert_eq!(first.status(), 201);
    assert!(first.headers().contains_key("x-jws-signature"));
    let first: Value = first.json().await.unwrap();
    let again = post(consent("10.00")).await.unwrap();
    assert_eq!(again.status(), 201);
    assert!(again.headers().contains_key("x-jws-signature"));
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["Data"]["ConsentId"], first["Data"]["ConsentId"]);
    let other = post(consent("20.00")).await.unwrap();
    assert_eq!(other.status(), 400);
    let exchanges = bank.exchanges().await;
    let made = exchanges
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["operation"] == "POST /domestic-payment-consents" && x["status"] == 201)
        .count();
    assert_eq!(made, 1, "one consent made for one key");
}

const MANDATE_REFERENCE: &str = "LH-MANDATE-7Q2X";

/// £100 a payment, £150 a month from the consent's day.
fn terms() -> MandateTerms<'static> {
    MandateTerms {
        most_per_payment: Money::pence(10_000),
        most_per_period: Money::pence(15_000),
        period: PeriodType::Month,
        reference: MANDATE_REFERENCE,
    }
}

fn instalment(id: &str, pence: i64) -> PaymentOrder<'_> {
    PaymentOrder {
        id,
        amount: Money::pence(pence),
        reference: "LH-7Q2X-INST",
        due_on: None,
    }
}

/// What the adapter renewed, kept as lendhub's store keeps a mandate's
/// tokens.
#[derive(Default)]
struct Kept(std::sync::Mutex<Vec<PayerTokens>>);

#[async_trait::async_trait]
impl KeepTokens for Kept {
    async fn keep(&self, renewed: &PayerTokens) -> Result<(), TokensNotKept> {
        self.0.lock().unwrap().push(renewed.clone());
        Ok(())
    }
}

impl Kept {
    fn renewals(&self) -> Vec<PayerTokens> {
        self.0.lock().unwrap().clone()
    }
}

impl Bank {
    /// A mandate the payer authorised at the bank, paying from `account`.
    async fn mandate(&self, account: &str) -> MandateAtBank {
        // A new state each time: the consent's idempotency key is its.
        let state = format!("mnd.{}", lendhub_system::random_token(8));
        let asked = self
            .vrp
            .request_mandate("model_bank", &terms(), (&state, "nonce-m"))
            .await
            .unwrap();
        let page = self.http.get(&asked.authorise_url).send().await.unwrap();
        let html = page.text().await.unwrap();
        assert!(
            html.contains("without asking you each time") && html.contains("GBP 100.00 a payment"),
            "{html}"
        );
        let (back, _) = self
            .payer_answers(&asked.authorise_url, account, "approve")
            .await;
        let code = back["code"].as_str().unwrap();
        let tokens = self
            .vrp
            .authorise_mandate("model_bank", &asked.consent_id, (code, "nonce-m"))
            .await
            .unwrap();
        assert!(
            tokens.refresh_token.is_some(),
            "a VRP consent's token renews"
        );
        MandateAtBank {
            consent_id: asked.consent_id,
            reference: MANDATE_REFERENCE.to_owned(),
            tokens,
        }
    }
}

#[tokio::test]
async fn a_mandate_pays_each_instalment_within_its_limits_renewing_the_payers_token() {
    let bank = Bank::start().await;
    let mut mandate = bank.mandate("strong").await;
    let kept = Kept::default();
    let first = bank
        .vrp
        .collect(
            "model_bank",
            &mandate,
            &instalment("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9M1", 10_000),
            &kept,
        )
        .await
        .unwrap();
    assert!(kept.renewals().is_empty(), "the first token is still good");
    assert_eq!(first.progress, Progress::InProgress);
    let read = bank
        .vrp
        .collection_status("model_bank", &first.domestic_payment_id)
        .await
        .unwrap();
    assert_eq!(read.progress, Progress::Settled);

    // The bank holds lendhub to the consent: £60 more this month is past
    // its £150; £120 is past the £100 a payment.
    for (id, pence) in [
        ("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9M2", 6_000),
        ("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9M3", 12_000),
    ] {
        let refused = bank
            .vrp
            .collect("model_bank", &mandate, &instalment(id, pence), &kept)
            .await;
        assert!(
            matches!(refused, Err(CollectRefused::OverLimits)),
            "{refused:?}"
        );
    }

    // A month on, the payer's token has lapsed: renewed with the refresh
    // token (which the bank rotates), kept, and the next instalment paid.
    bank.clock.advance(time::Duration::days(31));
    let next = bank
        .vrp
        .collect(
            "model_bank",
            &mandate,
            &instalment("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9M4", 10_000),
            &kept,
        )
        .await
        .unwrap();
    let renewals = kept.renewals();
    assert_eq!(renewals.len(), 1, "the lapsed token was renewed once");
    let renewed = renewals[0].clone();
    assert_ne!(
        renewed.access_token.expose(),
        mandate.tokens.access_token.expose()
    );
    assert_ne!(
        renewed.refresh_token.as_ref().unwrap().expose(),
        mandate.tokens.refresh_token.as_ref().unwrap().expose(),
        "the bank rotates the refresh token"
    );

    // Another instance still holding the spent tokens is refused a
    // renewal; the consent stands, so that is no revoked mandate, only an
    // instalment for a later pass.
    let stale = bank
        .vrp
        .collect(
            "model_bank",
            &mandate,
            &instalment("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9M5", 1_000),
            &Kept::default(),
        )
        .await;
    assert!(
        matches!(stale, Err(CollectRefused::Unavailable(_))),
        "{stale:?}"
    );

    // An access token the bank no longer takes, though lendhub thought it
    // good for hours (the bank's clock ahead, or a token it withdrew): it
    // is renewed once, and the payment made with the new one.
    mandate.tokens = PayerTokens {
        access_token: "withdrawn-by-the-bank".to_owned().into(),
        ..renewed
    };
    let after_refusal = Kept::default();
    // Asked again after a lost answer: the same payment, not a second.
    let again = bank
        .vrp
        .collect(
            "model_bank",
            &mandate,
            &instalment("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9M4", 10_000),
            &after_refusal,
        )
        .await
        .unwrap();
    assert_eq!(again.domestic_payment_id, next.domestic_payment_id);
    assert_eq!(after_refusal.renewals().len(), 1, "renewed after the 401");

    let exchanges = bank.exchanges().await;
    let made = exchanges
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["operation"] == "POST /domestic-vrps" && x["status"] == 201)
        .count();
    // The repeat was answered with the first answer: two payments made.
    assert_eq!(made, 2);
    for x in exchanges.as_array().unwrap() {
        assert!(x["headers"]["x-fapi-interaction-id"].is_string(), "{x}");
        if x["operation"].as_str().unwrap().starts_with("POST") {
            assert!(x["headers"]["x-idempotency-key"].is_string(), "{x}");
            assert!(x["headers"]["x-jws-signature"].is_string(), "{x}");
        }
    }
    let site = Site::new().await;
    let checked = open_banking_conformance(site.path(), &exchanges, "vrp-openapi.json").await;
    assert_eq!(checked["problems"], json!([]), "{checked}");
    assert_eq!(
        checked["operations"],
        json!([
            "GET /domestic-vrp-consents/{ConsentId}",
            "GET /domestic-vrps/{DomesticVRPId}",
            "POST /domestic-vrp-consents",
            "POST /domestic-vrps"
        ]),
        "{checked}"
    );
}

#[tokio::test]
async fn a_mandate_revoked_at_the_bank_or_ended_by_lendhub_takes_nothing_more() {
    let bank = Bank::start().await;
    // The payer revokes at their bank: the next instalment is refused, and
    // so is renewing the token.
    let revoked = bank.mandate("strong").await;
    let path = format!("/_model/consents/{}/revoke", revoked.consent_id);
    assert_eq!(bank.admin(reqwest::Method::POST, &path).await, 204);
    let refused = bank
        .vrp
        .collect(
            "model_bank",
            &revoked,
            &instalment("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9R1", 5_000),
            &Kept::default(),
        )
        .await;
    assert!(
        matches!(refused, Err(CollectRefused::Revoked)),
        "{refused:?}"
    );
    bank.clock.advance(time::Duration::hours(2));
    let refused = bank
        .vrp
        .collect(
            "model_bank",
            &revoked,
            &instalment("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9R2", 5_000),
            &Kept::default(),
        )
        .await;
    assert!(
        matches!(refused, Err(CollectRefused::Revoked)),
        "{refused:?}"
    );

    // lendhub ends one (the payer withdrew it with lendhub): the same, and
    // ending it again is no error.
    let ended = bank.mandate("strong").await;
    bank.vrp
        .end_mandate("model_bank", &ended.consent_id)
        .await
        .unwrap();
    let refused = bank
        .vrp
        .collect(
            "model_bank",
            &ended,
            &instalment("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9R3", 5_000),
            &Kept::default(),
        )
        .await;
    assert!(
        matches!(refused, Err(CollectRefused::Revoked)),
        "{refused:?}"
    );
    bank.vrp
        .end_mandate("model_bank", &ended.consent_id)
        .await
        .unwrap();

    // From an account without the money: accepted, then rejected.
    let low = bank.mandate("low").await;
    let paid = bank
        .vrp
        .collect(
            "model_bank",
            &low,
            &instalment("pay_01KQ3V1Y2C8WZ3R5T6Y7X8V9R4", 5_000),
            &Kept::default(),
        )
        .await
        .unwrap();
    let read = bank
        .vrp
        .collection_status("model_bank", &paid.domestic_payment_id)
        .await
        .unwrap();
    assert_eq!(
        read.progress,
        Progress::Failed(FailureReason::InsufficientFunds)
    );

    let exchanges = bank.exchanges().await;
    let site = Site::new().await;
    let checked = open_banking_conformance(site.path(), &exchanges, "vrp-openapi.json").await;
    assert_eq!(checked["problems"], json!([]), "{checked}");
    assert!(
        checked["operations"]
            .as_array()
            .unwrap()
            .contains(&json!("DELETE /domestic-vrp-consents/{ConsentId}")),
        "{checked}"
    );
}
