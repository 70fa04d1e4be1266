//! The lender's own accounts at the model bank, and Faster Payments out of
//! them, as ClearBank's Institution API offers them to a lender
//! (`lendhub_domain::payout_rail::clearbank`; `docs/guide/src/simulators.md`):
//!
//! - `POST /v3/payments/fps`: the client's API token as a bearer token
//!   (the model takes the client's secret), a `DigitalSignature` header
//!   (RSASSA-PKCS1-v1_5 SHA-256 over the exact body, Base64, checked with
//!   the key registered for the client) and an `X-Request-Id`. Answers
//!   `202` with each transfer's `Accepted` or why not; a transfer whose
//!   `endToEndIdentification` the bank has seen is the same payment,
//!   answered `Accepted` again and never paid twice.
//! - An accepted payment settles after the configured delay (none by
//!   default) and the bank posts `TransactionSettled` (v6), or
//!   `TransactionRejected` (v2) for the magic payees below, to the
//!   client's webhook URL, signed the same way with the bank's key. The
//!   client answers `200` with `{"Nonce": <the nonce>}`, signed; any other
//!   answer is retried after 1, 2, 4, … 32 seconds, then given up (the
//!   client finds the payment by status).
//! - `GET /v2/Accounts/{accountId}/Transactions`: the funding account's
//!   payments out (`DBIT`), with ISO 20022 statuses (`ACSP` in progress,
//!   `ACSC` settled, `RJCT` rejected), or the collection account's
//!   payments in (`CRDT`, `ACSC`) from payers' single and recurring
//!   payments; newest first, filtered by `endToEndIdentifier` (how a
//!   client that lost a webhook learns what became of a payment) and by
//!   `startDateTime`/`endDateTime` (a day's statement, for
//!   reconciliation), paged by `pageNumber`/`pageSize` (default 50).
//!
//! Magic payees (sort code and account number): `04000499999997`, an
//! account since closed, rejects with `AC07`; `04000400000000` is no
//! account (`AC03`). Every other payee settles.
//!
//! Admin (the client's credentials, as HTTP basic):
//! - `PUT /_model/fps/settle_after` `{"ms": 5000}`: payments accepted from
//!   now settle that long after;
//! - `PUT /_model/fps/hold`: accepted payments stay in progress, until
//!   `DELETE /_model/fps/hold` settles them all;
//! - `PUT /_model/fps/silence`: settlements post no webhook (a lost one),
//!   until `DELETE /_model/fps/silence`;
//! - `PUT /_model/fps/reject` `{"code": "AC07"}` (or `AC03`, `AC06`):
//!   every payment settling from now is rejected with that code, whatever
//!   its payee, until `DELETE /_model/fps/reject`;
//! - `POST /_model/fps/{endToEndId}/notify`: the payment's webhook again;
//! - `GET /_model/fps`: every payment, for a test to count;
//! - `POST /_model/statement/{endToEndId}/omit`: statements leave that
//!   transaction out, as if the money never moved.

use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use lendhub_domain::money::Money;
use lendhub_domain::open_banking::pis::PaymentStatus;
use lendhub_domain::open_banking::test_accounts;
use lendhub_domain::payout_rail::clearbank::{
    self, ACCEPTED, CounterpartAccount, InstructionResponse, PaymentRequest, PaymentResponse,
    TRANSACTION_REJECTED, TRANSACTION_SETTLED, Transaction, TransactionAmount, Transactions,
    Webhook,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::Bank;
use crate::keys;

/// The lender's funding account at the model bank: its id in the API and
/// its sort code and account number.
pub const FUNDING_ACCOUNT: (&str, &str) =
    ("8c0e2d4a-5b1f-4e7a-9d3c-2f6b1a0e7c51", "04000400000018");

/// The lender's collection account at the model bank, which payers' single
/// and variable recurring payments pay into: its id in the API and its
/// sort code and account number (`standing::COLLECTION_ACCOUNT`).
pub const COLLECTION_ACCOUNT: (&str, &str) = (
    "3f7b9c1e-2d4a-4c8e-b6f0-9a1d5e7c2b34",
    super::standing::COLLECTION_ACCOUNT.1,
);

/// The payee that is no account at all.
pub const NO_SUCH_ACCOUNT: &str = "04000400000000";

/// Faster Payments' limit per payment: £1,000,000.
const MAX_PAYMENT_PENCE: i64 = 100_000_000;

/// How often, and after what waits, a webhook the client did not take is
/// posted again.
const WEBHOOK_RETRIES: [u64; 6] = [1, 2, 4, 8, 16, 32];

/// A payment out of the funding account.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct FpsPayment {
    transaction_id: String,
    end_to_end_id: String,
    amount: Money,
    payee: String,
    reference: String,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    state: FpsState,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
enum FpsState {
    InProgress,
    Settled {
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
    },
    Rejected {
        code: String,
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
    },
}

/// What testers set: how long settlement takes, whether it is held, and
/// whether webhooks are lost. Not kept on disk.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Rail {
    settle_after: Duration,
    held: bool,
    silent: bool,
    /// Every payment settling from now is rejected with this code, as if
    /// its payee's account had closed (`PUT /_model/fps/reject`).
    reject_with: Option<RejectCode>,
}

/// The codes a tester may have the scheme reject payments with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
enum RejectCode {
    AC03,
    AC06,
    AC07,
}

impl RejectCode {
    fn as_str(self) -> &'static str {
        match self {
            RejectCode::AC03 => "AC03",
            RejectCode::AC06 => "AC06",
            RejectCode::AC07 => "AC07",
        }
    }
}

pub(super) fn routes() -> axum::Router<Bank> {
    axum::Router::new()
        .route("/v3/payments/fps", post(initiate))
        .route("/v2/Accounts/{account_id}/Transactions", get(transactions))
}

pub(super) fn admin() -> axum::Router<Bank> {
    axum::Router::new()
        .route("/_model/fps", get(list))
        .route("/_model/fps/settle_after", put(settle_after))
        .route("/_model/fps/hold", put(hold).delete(release))
        .route("/_model/fps/reject", put(reject).delete(stop_rejecting))
        .route("/_model/fps/silence", put(silence).delete(unsilence))
        .route("/_model/fps/{end_to_end_id}/notify", post(notify))
        .route("/_model/statement/{end_to_end_id}/omit", post(omit))
}

/// ClearBank's problem document.
fn problem(status: StatusCode, title: &str) -> Response {
    (
        status,
        Json(json!({"type": "about:blank", "title": title, "status": status.as_u16()})),
    )
        .into_response()
}

fn authorised(bank: &Bank, headers: &HeaderMap) -> bool {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    token.is_some_and(|t| {
        subtle::ConstantTimeEq::ct_eq(
            t.trim().as_bytes(),
            bank.registration.client_secret.as_bytes(),
        )
        .into()
    })
}

/// Whether `body` carries the client's `DigitalSignature`.
fn signed_by_client(bank: &Bank, headers: &HeaderMap, body: &[u8]) -> bool {
    let Some(signature) = headers
        .get("digitalsignature")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| STANDARD.decode(v.trim()).ok())
    else {
        return false;
    };
    lendhub_system::Rs256Verifier::from_pem(&bank.registration.signing_key_pem)
        .is_ok_and(|key| key.verify(body, &signature))
}

async fn initiate(State(bank): State<Bank>, headers: HeaderMap, body: Bytes) -> Response {
    let operation = "POST /v3/payments/fps";
    if let Some(status) = bank.injected.apply().await {
        return problem(status, "the bank is unavailable");
    }
    if !authorised(&bank, &headers) {
        return problem(StatusCode::UNAUTHORIZED, "a valid API token is required");
    }
    let request_id = headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if request_id.is_empty() || request_id.len() > 83 {
        return problem(
            StatusCode::BAD_REQUEST,
            "X-Request-Id is required (at most 83 characters)",
        );
    }
    if !signed_by_client(&bank, &headers, &body) {
        return problem(
            StatusCode::FORBIDDEN,
            "the DigitalSignature does not verify",
        );
    }
    let request_json = serde_json::from_slice::<Value>(&body).ok();
    let Ok(request) = serde_json::from_slice::<PaymentRequest>(&body) else {
        return problem(
            StatusCode::BAD_REQUEST,
            "not a BatchCreateCreditTransferRequest",
        );
    };
    if request.payment_instructions.is_empty() || request.payment_instructions.len() > 10 {
        return problem(StatusCode::BAD_REQUEST, "1 to 10 payment instructions");
    }
    let now = bank.now();
    let rail = *bank.rail.lock();
    let mut answers = Vec::new();
    let mut to_settle = Vec::new();
    for instruction in &request.payment_instructions {
        let from_funding =
            instruction.debtor_account.sort_code_account_number() == Some(FUNDING_ACCOUNT.1);
        for transfer in &instruction.credit_transfers {
            let e2e = transfer
                .payment_identification
                .end_to_end_identification
                .clone();
            let response = {
                let mut books = bank.books();
                if books.fps.contains_key(&e2e) {
                    // ClearBank's duplicate check: the same payment.
                    ACCEPTED
                } else if e2e.is_empty() || e2e.len() > 35 {
                    "InvalidInstructionIdentification"
                } else if !from_funding {
                    "InvalidAccount"
                } else if transfer.amount.currency != "GBP" {
                    "InvalidCurrency"
                } else {
                    let amount = clearbank::pence(transfer.amount.instructed_amount)
                        .filter(|a| a.as_pence() > 0 && a.as_pence() <= MAX_PAYMENT_PENCE);
                    match (amount, transfer.creditor_account.sort_code_account_number()) {
                        (_, None) => "InvalidAccount",
                        (None, Some(_)) => "Rejected",
                        (Some(amount), Some(payee)) => {
                            let reference = &transfer
                                .remittance_information
                                .structured
                                .creditor_reference_information
                                .reference;
                            books.fps.insert(
                                e2e.clone(),
                                FpsPayment {
                                    transaction_id: lendhub_system::random_uuid(),
                                    end_to_end_id: e2e.clone(),
                                    amount,
                                    payee: payee.to_owned(),
                                    // What the scheme carries.
                                    reference: reference.chars().take(18).collect(),
                                    created_at: now,
                                    state: FpsState::InProgress,
                                },
                            );
                            to_settle.push(e2e.clone());
                            ACCEPTED
                        }
                    }
                }
            };
            answers.push(InstructionResponse {
                end_to_end_identification: e2e,
                response: response.to_owned(),
            });
        }
    }
    let any_accepted = answers.iter().any(|a| a.response == ACCEPTED);
    let answer = PaymentResponse {
        transactions: answers,
        hal_links: Vec::new(),
    };
    let status = if any_accepted {
        StatusCode::ACCEPTED
    } else {
        StatusCode::BAD_REQUEST
    };
    let response = serde_json::to_value(&answer).unwrap_or(Value::Null);
    bank.record_exchange(
        operation,
        &headers,
        request_json,
        status,
        Some(response.clone()),
    );
    if !rail.held {
        for e2e in to_settle {
            let bank = bank.clone();
            tokio::spawn(async move {
                if !rail.settle_after.is_zero() {
                    tokio::time::sleep(rail.settle_after).await;
                }
                bank.settle_fps(&e2e).await;
            });
        }
    }
    (status, Json(response)).into_response()
}

impl Bank {
    /// The scheme's answer for a payment in progress: settled, or rejected
    /// for a magic payee; then its webhook, unless webhooks are lost.
    async fn settle_fps(&self, e2e: &str) {
        let now = self.now();
        {
            let mut books = self.books();
            let Some(payment) = books.fps.get_mut(e2e) else {
                return;
            };
            if payment.state != FpsState::InProgress {
                return;
            }
            let injected = self.rail.lock().reject_with;
            payment.state = match payment.payee.as_str() {
                _ if injected.is_some() => FpsState::Rejected {
                    code: injected.map_or("AC07", RejectCode::as_str).to_owned(),
                    at: now,
                },
                test_accounts::CLOSED => FpsState::Rejected {
                    code: "AC07".to_owned(),
                    at: now,
                },
                NO_SUCH_ACCOUNT => FpsState::Rejected {
                    code: "AC03".to_owned(),
                    at: now,
                },
                _ => FpsState::Settled { at: now },
            };
        }
        if self.rail.lock().silent {
            return;
        }
        for wait in std::iter::once(0).chain(WEBHOOK_RETRIES) {
            if wait > 0 {
                tokio::time::sleep(Duration::from_secs(wait)).await;
            }
            if self.post_webhook(e2e).await == Some(true) {
                return;
            }
        }
        tracing::warn!(
            end_to_end_id = e2e,
            "the client never took the payment's webhook"
        );
    }

    /// Posts the payment's webhook once: whether the client answered as it
    /// must (`200`, the nonce, signed); none if there is nothing to post.
    async fn post_webhook(&self, e2e: &str) -> Option<bool> {
        let url = self.registration.rail_webhook_url.clone()?;
        let payment = self.books.lock().fps.get(e2e).cloned()?;
        let nonce = i64::from(u32::from_be_bytes(lendhub_system::random_bytes::<4>()));
        let webhook = webhook(&payment, nonce)?;
        let body = serde_json::to_vec(&webhook).ok()?;
        let signature = rail_signature(&body)?;
        let answer = reqwest::Client::new()
            .post(&url)
            .header("content-type", "application/json")
            .header("DigitalSignature", signature)
            .body(body)
            .timeout(Duration::from_secs(10))
            .send()
            .await;
        let taken = match answer {
            Ok(answer) if answer.status() == StatusCode::OK => {
                let signature = answer
                    .headers()
                    .get("digitalsignature")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| STANDARD.decode(v.trim()).ok());
                let body = answer.bytes().await.unwrap_or_default();
                let nonce_back = serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|v| v.get("Nonce").and_then(Value::as_i64));
                let verified = signature.is_some_and(|s| {
                    lendhub_system::Rs256Verifier::from_pem(&self.registration.signing_key_pem)
                        .is_ok_and(|key| key.verify(&body, &s))
                });
                nonce_back == Some(nonce) && verified
            }
            _ => false,
        };
        self.record_exchange(
            &format!("POST {} (webhook)", webhook.kind),
            &HeaderMap::new(),
            serde_json::to_value(&webhook).ok(),
            if taken {
                StatusCode::OK
            } else {
                StatusCode::BAD_GATEWAY
            },
            None,
        );
        Some(taken)
    }
}

/// The bank's `DigitalSignature` over `body`.
fn rail_signature(body: &[u8]) -> Option<String> {
    static KEY: std::sync::LazyLock<Option<lendhub_system::RsaSigner>> =
        std::sync::LazyLock::new(|| {
            lendhub_system::RsaSigner::from_pem(keys::MODEL_BANK_SIGNING_PEM).ok()
        });
    let signature = KEY.as_ref()?.sign_rs256(body).ok()?;
    Some(STANDARD.encode(signature))
}

/// The webhook a payment's end posts; none while it is in progress.
fn webhook(payment: &FpsPayment, nonce: i64) -> Option<Webhook> {
    let account = json!({"BBAN": format!("MODL{}", FUNDING_ACCOUNT.1)});
    let counterpart = json!({"BBAN": format!("MODL{}", payment.payee)});
    let (kind, version, payload) = match &payment.state {
        FpsState::InProgress => return None,
        FpsState::Settled { at } => (
            TRANSACTION_SETTLED,
            6,
            json!({
                "TransactionId": payment.transaction_id,
                "Status": "Settled",
                "Scheme": "FasterPayments",
                "EndToEndTransactionId": payment.end_to_end_id,
                "Amount": clearbank::pounds(payment.amount),
                "TimestampSettled": rfc3339(*at),
                "TimestampCreated": rfc3339(payment.created_at),
                "CurrencyCode": "GBP",
                "DebitCreditCode": "Debit",
                "Reference": payment.reference,
                "IsReturn": false,
                "Account": account,
                "CounterpartAccount": counterpart,
                "ActualEndToEndTransactionId": payment.transaction_id,
            }),
        ),
        FpsState::Rejected { code, at } => (
            TRANSACTION_REJECTED,
            2,
            json!({
                "TransactionId": payment.transaction_id,
                "Status": "Rejected",
                "Scheme": "FasterPayments",
                "EndToEndTransactionId": payment.end_to_end_id,
                "Amount": clearbank::pounds(payment.amount),
                "TimestampModified": rfc3339(*at),
                "CurrencyCode": "GBP",
                "DebitCreditCode": "Debit",
                "Reference": payment.reference,
                "IsReturn": false,
                "CancellationCode": code,
                "CancellationReason": match code.as_str() {
                    "AC07" => "Beneficiary account closed",
                    _ => "Beneficiary sort code/account number unknown",
                },
                "Account": account,
                "CounterpartAccount": counterpart,
            }),
        ),
    };
    Some(Webhook {
        kind: kind.to_owned(),
        version,
        payload,
        nonce,
    })
}

fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TransactionsQuery {
    end_to_end_identifier: Option<String>,
    #[serde(default, with = "time::serde::rfc3339::option")]
    start_date_time: Option<OffsetDateTime>,
    #[serde(default, with = "time::serde::rfc3339::option")]
    end_date_time: Option<OffsetDateTime>,
    page_number: Option<usize>,
    page_size: Option<usize>,
}

/// ClearBank's page size when the client names none.
const PAGE_SIZE: usize = 50;

async fn transactions(
    State(bank): State<Bank>,
    Path(account_id): Path<String>,
    Query(query): Query<TransactionsQuery>,
    headers: HeaderMap,
) -> Response {
    if let Some(status) = bank.injected.apply().await {
        return problem(status, "the bank is unavailable");
    }
    if !authorised(&bank, &headers) {
        return problem(StatusCode::UNAUTHORIZED, "a valid API token is required");
    }
    let books = bank.books.lock();
    let all = if account_id == FUNDING_ACCOUNT.0 {
        books.fps.values().map(out_of_funding).collect()
    } else if account_id == COLLECTION_ACCOUNT.0 {
        into_collections(&books)
    } else {
        return problem(StatusCode::NOT_FOUND, "no such account");
    };
    let omitted = books.omitted.clone();
    drop(books);
    let mut listed: Vec<Transaction> = all
        .into_iter()
        .filter(|t| !omitted.contains(&t.end_to_end_identifier))
        .filter(|t| {
            query
                .end_to_end_identifier
                .as_deref()
                .is_none_or(|e2e| e2e == t.end_to_end_identifier)
        })
        .filter(|t| {
            query
                .start_date_time
                .is_none_or(|s| t.transaction_time >= s)
        })
        .filter(|t| query.end_date_time.is_none_or(|e| t.transaction_time <= e))
        .collect();
    listed.sort_by(|a, b| {
        (b.transaction_time, &b.transaction_id).cmp(&(a.transaction_time, &a.transaction_id))
    });
    let size = query.page_size.unwrap_or(PAGE_SIZE).clamp(1, 1_000);
    let page = query.page_number.unwrap_or(1).max(1);
    let listed = listed
        .into_iter()
        .skip((page - 1) * size)
        .take(size)
        .collect();
    Json(Transactions {
        transactions: listed,
        hal_links: Vec::new(),
    })
    .into_response()
}

/// A payment out of the funding account, as its statement shows it: at
/// the time it settled or was rejected, else when it was made.
fn out_of_funding(p: &FpsPayment) -> Transaction {
    let (status, at) = match &p.state {
        FpsState::InProgress => ("ACSP", p.created_at),
        FpsState::Settled { at } => ("ACSC", *at),
        FpsState::Rejected { at, .. } => ("RJCT", *at),
    };
    Transaction {
        transaction_id: p.transaction_id.clone(),
        end_to_end_identifier: p.end_to_end_id.clone(),
        transaction_reference: p.reference.clone(),
        transaction_time: at,
        status: status.to_owned(),
        debit_credit_code: "DBIT".to_owned(),
        amount: TransactionAmount {
            instructed_amount: clearbank::pounds(p.amount),
            currency: "GBP".to_owned(),
        },
        counterpart_account: CounterpartAccount::uk(&p.payee),
    }
}

/// What payers' single and variable recurring payments paid into the
/// collection account: each one the payer's bank accepted and did not
/// reject (`pis::first_status`), credited when it was made, unless a
/// tester holds it.
fn into_collections(books: &super::Books) -> Vec<Transaction> {
    let single = books.payments.values().filter(|p| !p.held).map(|p| {
        (
            &p.data.domestic_payment_id,
            p.account,
            &p.data.initiation.end_to_end_identification,
            &p.data.initiation.instructed_amount,
            p.data.created,
        )
    });
    let recurring = books.vrps.values().map(|p| {
        (
            &p.data.domestic_vrp_id,
            p.account,
            &p.data.instruction.end_to_end_identification,
            &p.data.instruction.instructed_amount,
            p.data.created,
        )
    });
    single
        .chain(recurring)
        .filter(|(_, account, ..)| {
            super::pis::first_status(*account) == PaymentStatus::AcceptedSettlementInProcess
        })
        .filter_map(|(id, account, e2e, amount, at)| {
            let payer = test_accounts::find(account.0)?;
            Some(Transaction {
                transaction_id: id.clone(),
                end_to_end_identifier: e2e.clone(),
                transaction_reference: e2e.clone(),
                transaction_time: at,
                status: "ACSC".to_owned(),
                debit_credit_code: "CRDT".to_owned(),
                amount: TransactionAmount {
                    instructed_amount: clearbank::pounds(Money::pence(amount.pence()?)),
                    currency: "GBP".to_owned(),
                },
                counterpart_account: CounterpartAccount::uk(payer.sort_code_account_number),
            })
        })
        .collect()
}

/// `POST /_model/statement/{endToEndId}/omit`: the lender's statements
/// leave that transaction out from now on, as if the bank never moved the
/// money (for a reconciliation test).
async fn omit(State(bank): State<Bank>, Path(e2e): Path<String>) -> StatusCode {
    bank.books().omitted.insert(e2e);
    StatusCode::NO_CONTENT
}

async fn list(State(bank): State<Bank>) -> Json<Vec<FpsPayment>> {
    Json(bank.books.lock().fps.values().cloned().collect())
}

#[derive(Deserialize)]
struct Ms {
    ms: u64,
}

async fn settle_after(State(bank): State<Bank>, Json(ms): Json<Ms>) -> StatusCode {
    bank.rail.lock().settle_after = Duration::from_millis(ms.ms.min(600_000));
    StatusCode::NO_CONTENT
}

#[derive(Deserialize)]
struct Reject {
    code: RejectCode,
}

async fn reject(State(bank): State<Bank>, Json(reject): Json<Reject>) -> StatusCode {
    bank.rail.lock().reject_with = Some(reject.code);
    StatusCode::NO_CONTENT
}

async fn stop_rejecting(State(bank): State<Bank>) -> StatusCode {
    bank.rail.lock().reject_with = None;
    StatusCode::NO_CONTENT
}

async fn hold(State(bank): State<Bank>) -> StatusCode {
    bank.rail.lock().held = true;
    StatusCode::NO_CONTENT
}

/// Releases the hold: every payment in progress settles now.
async fn release(State(bank): State<Bank>) -> StatusCode {
    bank.rail.lock().held = false;
    for e2e in in_progress(&bank) {
        let bank = bank.clone();
        tokio::spawn(async move { bank.settle_fps(&e2e).await });
    }
    StatusCode::NO_CONTENT
}

async fn silence(State(bank): State<Bank>) -> StatusCode {
    bank.rail.lock().silent = true;
    StatusCode::NO_CONTENT
}

async fn unsilence(State(bank): State<Bank>) -> StatusCode {
    bank.rail.lock().silent = false;
    StatusCode::NO_CONTENT
}

/// The payment's webhook posted again: `{"taken": <whether the client
/// answered as it must>}`.
async fn notify(State(bank): State<Bank>, Path(e2e): Path<String>) -> Response {
    match bank.post_webhook(&e2e).await {
        Some(taken) => Json(json!({ "taken": taken })).into_response(),
        None => problem(StatusCode::NOT_FOUND, "no such payment, or no webhook URL"),
    }
}

/// Payments accepted but not yet settled when the bank last stopped
/// settle once it runs again.
pub(super) fn resume(bank: &Bank) {
    if bank.rail.lock().held {
        return;
    }
    let waiting = in_progress(bank);
    if waiting.is_empty() {
        return;
    }
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    for e2e in waiting {
        let bank = bank.clone();
        runtime.spawn(async move { bank.settle_fps(&e2e).await });
    }
}

/// The end-to-end ids of the payments still in progress.
fn in_progress(bank: &Bank) -> Vec<String> {
    bank.books
        .lock()
        .fps
        .values()
        .filter(|p| p.state == FpsState::InProgress)
        .map(|p| p.end_to_end_id.clone())
        .collect()
}
