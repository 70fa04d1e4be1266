//! The Payment Initiation API, domestic single payments: payment consents
//! (the client's token, `payments` scope), and the payment submitted under
//! one the payer authorised (the payer's token). Both POSTs honour
//! `x-idempotency-key`: the same key with the same body answers the first
//! answer again; with another body, 400.
//!
//! What happens to a payment depends on the test account the payer chose
//! on the consent page (`lendhub_domain::open_banking::test_accounts`):
//! - `strong`, `thin`: accepted (`AcceptedSettlementInProcess`), and
//!   `AcceptedSettlementCompleted` from the first time it is read;
//! - `low`: accepted (`Pending`), then `Rejected` when first read: the
//!   balance did not cover it;
//! - `closed`: `Rejected` at once.
//!
//! `POST /_model/payments/{id}/hold` keeps a payment where it is until
//! `DELETE /_model/payments/{id}/hold` (a bank that never says).

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use lendhub_domain::open_banking::pis::{
    Consent as ConsentData, ConsentRequest, ConsentStatus, Payment as PaymentData, PaymentRequest,
    PaymentStatus,
};
use serde_json::{Value, json};

use super::oidc::{Grant, bearer};
use super::{Bank, PISP, Refused, ob_error, signatures};

/// A payment consent and, once authorised, the account that pays.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct PaymentConsent {
    pub data: ConsentData,
    pub account: Option<super::AccountKey>,
}

/// A payment submitted, and whether a tester holds it where it is.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Submitted {
    pub data: PaymentData,
    pub account: super::AccountKey,
    pub held: bool,
}

/// A POST already answered under an idempotency key.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Answered {
    body: Option<Value>,
    #[serde(with = "status_code")]
    status: StatusCode,
    response: Value,
}

pub(super) fn routes() -> Router<Bank> {
    Router::new()
        .route(
            &format!("{PISP}/domestic-payment-consents"),
            post(create_consent),
        )
        .route(
            &format!("{PISP}/domestic-payment-consents/{{id}}"),
            get(read_consent),
        )
        .route(&format!("{PISP}/domestic-payments"), post(create_payment))
        .route(
            &format!("{PISP}/domestic-payments/{{id}}"),
            get(read_payment),
        )
}

/// The admin routes that hold a payment where it is.
pub(super) fn admin() -> Router<Bank> {
    Router::new().route("/_model/payments/{id}/hold", post(hold).delete(release))
}

pub(super) fn refused(status: StatusCode, code: &str, message: &str) -> Response {
    ob_error(status, code, message)
}

pub(super) fn unauthorised() -> Response {
    refused(
        StatusCode::UNAUTHORIZED,
        "UK.OBIE.Header.Invalid",
        "a valid bearer token is required",
    )
}

pub(super) fn bad_request(message: &str) -> Response {
    refused(StatusCode::BAD_REQUEST, "UK.OBIE.Field.Invalid", message)
}

/// The client's own token with the `payments` scope.
pub(super) fn client(bank: &Bank, headers: &HeaderMap) -> Result<(), Refused> {
    match bearer(bank, headers) {
        Some(Grant::Client { scope, .. }) if scope.split(' ').any(|s| s == "payments") => Ok(()),
        Some(_) => Err(Refused(
            StatusCode::FORBIDDEN,
            "UK.OBIE.Resource.InvalidScope",
            "the token does not allow this",
        )),
        None => Err(Refused(
            StatusCode::UNAUTHORIZED,
            "UK.OBIE.Header.Invalid",
            "a valid bearer token is required",
        )),
    }
}

pub(super) fn idempotency_key(headers: &HeaderMap) -> Option<String> {
    headers
        .get("x-idempotency-key")
        .and_then(|v| v.to_str().ok())
        .filter(|k| !k.is_empty() && k.len() <= 40)
        .map(str::to_owned)
}

fn consent_document(bank: &Bank, data: &ConsentData) -> Value {
    json!({
        "Data": data,
        "Risk": {},
        "Links": { "Self": format!("{}{PISP}/domestic-payment-consents/{}", bank.base, data.consent_id) },
        "Meta": {},
    })
}

fn payment_document(bank: &Bank, data: &PaymentData) -> Value {
    json!({
        "Data": data,
        "Links": { "Self": format!("{}{PISP}/domestic-payments/{}", bank.base, data.domestic_payment_id) },
        "Meta": {},
    })
}

/// The answer already given under `key` to `operation`: again for the
/// same body, 400 for another.
pub(super) fn replayed(
    bank: &Bank,
    operation: &str,
    key: &str,
    received: &Option<Value>,
) -> Option<Response> {
    let earlier = bank
        .books
        .lock()
        .idempotent
        .get(&format!("{operation} {key}"))
        .cloned()?;
    Some(if earlier.body == *received {
        signatures::signed(earlier.status, &earlier.response)
    } else {
        bad_request("the idempotency key was used with another request")
    })
}

pub(super) fn remember(
    bank: &Bank,
    operation: &str,
    key: &str,
    body: Option<Value>,
    status: StatusCode,
    response: &Value,
) {
    bank.books().idempotent.insert(
        format!("{operation} {key}"),
        Answered {
            body,
            status,
            response: response.clone(),
        },
    );
}

/// A signed, idempotent POST past its checks: its body as JSON and its
/// idempotency key; or the answer to give instead (no key, a bad
/// signature, or the first answer under the key again).
pub(super) fn signed_once(
    bank: &Bank,
    operation: &str,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(Option<Value>, String), Box<Response>> {
    let received: Option<Value> = serde_json::from_slice(body).ok();
    let Some(key) = idempotency_key(headers) else {
        return Err(Box::new(bad_request("x-idempotency-key is required")));
    };
    if let Err(refused) = signatures::check(bank, headers, body) {
        return Err(Box::new(refused.into_response()));
    }
    if let Some(again) = replayed(bank, operation, &key, &received) {
        return Err(Box::new(again));
    }
    Ok((received, key))
}

/// A resource made: its answer kept under the idempotency key, then
/// given, signed.
pub(super) fn created(
    bank: &Bank,
    operation: &str,
    headers: &HeaderMap,
    (received, key): (Option<Value>, &str),
    document: Value,
) -> Response {
    remember(
        bank,
        operation,
        key,
        received.clone(),
        StatusCode::CREATED,
        &document,
    );
    bank.answer_signed(operation, headers, received, StatusCode::CREATED, document)
}

/// No such consent or payment.
pub(super) fn not_found(what: &str) -> Response {
    refused(
        StatusCode::NOT_FOUND,
        "UK.OBIE.Resource.NotFound",
        &format!("no such {what}"),
    )
}

async fn create_consent(State(bank): State<Bank>, headers: HeaderMap, body: Bytes) -> Response {
    let operation = "POST /domestic-payment-consents";
    if let Err(refused) = client(&bank, &headers) {
        return refused.into_response();
    }
    let (received, key) = match signed_once(&bank, operation, &headers, &body) {
        Ok(admitted) => admitted,
        Err(answer) => return *answer,
    };
    let request = received
        .clone()
        .and_then(|v| serde_json::from_value::<ConsentRequest>(v).ok());
    let Some(request) = request.filter(|r| {
        r.data
            .initiation
            .instructed_amount
            .pence()
            .is_some_and(|p| p > 0)
    }) else {
        let answer = json!({
            "Code": "400",
            "Message": "the consent request is not an OBWriteDomesticConsent4 for a positive amount in GBP",
            "Errors": [{ "ErrorCode": "UK.OBIE.Field.Invalid", "Message": "Data.Initiation is invalid" }],
        });
        return bank.answer_signed(
            operation,
            &headers,
            received,
            StatusCode::BAD_REQUEST,
            answer,
        );
    };
    let now = bank.now();
    let data = ConsentData {
        consent_id: format!("pdc-{}", lendhub_system::random_token(12)),
        status: ConsentStatus::AwaitingAuthorisation,
        created: now,
        status_updated: now,
        initiation: request.data.initiation,
        read_refund_account: request.data.read_refund_account,
    };
    let document = consent_document(&bank, &data);
    bank.books().payment_consents.insert(
        data.consent_id.clone(),
        PaymentConsent {
            data,
            account: None,
        },
    );
    created(&bank, operation, &headers, (received, &key), document)
}

async fn read_consent(
    State(bank): State<Bank>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Err(refused) = client(&bank, &headers) {
        return refused.into_response();
    }
    let Some(consent) = bank.books().payment_consents.get(&id).cloned() else {
        return not_found("consent");
    };
    let document = consent_document(&bank, &consent.data);
    bank.answer_signed(
        "GET /domestic-payment-consents/{ConsentId}",
        &headers,
        None,
        StatusCode::OK,
        document,
    )
}

/// The account that paid, for a payment under a consent that asked for it
/// (`ReadRefundAccount: Yes`): the test account's own details.
pub(super) fn refund_account(
    asked: Option<&str>,
    account: super::AccountKey,
) -> Option<lendhub_domain::open_banking::pis::Refund> {
    if asked != Some(lendhub_domain::open_banking::pis::READ_REFUND_ACCOUNT) {
        return None;
    }
    let paying = lendhub_domain::open_banking::test_accounts::find(account.0)?;
    let shown = super::ledger::account(paying);
    Some(lendhub_domain::open_banking::pis::Refund {
        account: shown.identifications.into_iter().next()?,
    })
}

/// Where a new payment from `account` stands.
pub(super) fn first_status(account: super::AccountKey) -> PaymentStatus {
    match account.0 {
        "closed" => PaymentStatus::Rejected,
        "low" => PaymentStatus::Pending,
        _ => PaymentStatus::AcceptedSettlementInProcess,
    }
}

/// Where a payment from `account` goes when it is next read.
pub(super) fn next_status(account: super::AccountKey, now: PaymentStatus) -> PaymentStatus {
    match (account.0, now) {
        ("low", PaymentStatus::Pending) => PaymentStatus::Rejected,
        (_, PaymentStatus::AcceptedSettlementInProcess) => {
            PaymentStatus::AcceptedSettlementCompleted
        }
        (_, status) => status,
    }
}

async fn create_payment(State(bank): State<Bank>, headers: HeaderMap, body: Bytes) -> Response {
    let operation = "POST /domestic-payments";
    let Some(Grant::Consent { consent_id, .. }) = bearer(&bank, &headers) else {
        return unauthorised();
    };
    let (received, key) = match signed_once(&bank, operation, &headers, &body) {
        Ok(admitted) => admitted,
        Err(answer) => return *answer,
    };
    let Some(request) = received
        .clone()
        .and_then(|v| serde_json::from_value::<PaymentRequest>(v).ok())
    else {
        return bad_request("the payment is not an OBWriteDomestic2");
    };
    let now = bank.now();
    let data = {
        let mut books = bank.books();
        let Some(consent) = books.payment_consents.get_mut(&consent_id) else {
            return unauthorised();
        };
        if request.data.consent_id != consent_id {
            return bad_request("Data.ConsentId is not the consent the token was issued for");
        }
        if request.data.initiation != consent.data.initiation {
            return bad_request("Data.Initiation differs from the consent's");
        }
        let (ConsentStatus::Authorised, Some(account)) = (consent.data.status, consent.account)
        else {
            return refused(
                StatusCode::FORBIDDEN,
                "UK.OBIE.Resource.InvalidConsentStatus",
                "the consent is not authorised, or was already used",
            );
        };
        consent.data.status = ConsentStatus::Consumed;
        consent.data.status_updated = now;
        let data = PaymentData {
            domestic_payment_id: format!("pmt-{}", lendhub_system::random_token(12)),
            consent_id: consent_id.clone(),
            status: first_status(account),
            created: now,
            status_updated: now,
            initiation: request.data.initiation,
            refund: refund_account(consent.data.read_refund_account.as_deref(), account),
        };
        books.payments.insert(
            data.domestic_payment_id.clone(),
            Submitted {
                data: data.clone(),
                account,
                held: false,
            },
        );
        data
    };
    let document = payment_document(&bank, &data);
    created(&bank, operation, &headers, (received, &key), document)
}

/// `GET /domestic-payments/{id}`: the client's token (as the standard
/// allows, to poll), its status moved on as the model says.
async fn read_payment(
    State(bank): State<Bank>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Err(refused) = client(&bank, &headers) {
        return refused.into_response();
    }
    let data = {
        let mut books = bank.books();
        let Some(payment) = books.payments.get_mut(&id) else {
            return not_found("payment");
        };
        let next = next_status(payment.account, payment.data.status);
        if !payment.held && next != payment.data.status {
            payment.data.status = next;
            payment.data.status_updated = bank.now();
        }
        payment.data.clone()
    };
    let document = payment_document(&bank, &data);
    bank.answer_signed(
        "GET /domestic-payments/{DomesticPaymentId}",
        &headers,
        None,
        StatusCode::OK,
        document,
    )
}

async fn hold(State(bank): State<Bank>, Path(id): Path<String>) -> Response {
    set_held(&bank, &id, true)
}

async fn release(State(bank): State<Bank>, Path(id): Path<String>) -> Response {
    set_held(&bank, &id, false)
}

fn set_held(bank: &Bank, id: &str, held: bool) -> Response {
    match bank.books().payments.get_mut(id) {
        Some(payment) => {
            payment.held = held;
            StatusCode::NO_CONTENT.into_response()
        }
        None => not_found("payment"),
    }
}

/// Serde for an answer's status, as its number.
mod status_code {
    use axum::http::StatusCode;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(status: &StatusCode, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(status.as_u16())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<StatusCode, D::Error> {
        StatusCode::from_u16(u16::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}
