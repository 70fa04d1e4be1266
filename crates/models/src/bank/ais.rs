//! The Account and Transaction API: account-access consents (the client's
//! token), and the shared account's details, balances and transactions
//! (the payer's token, while the consent is authorised and unexpired).

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use lendhub_domain::open_banking::ais::{
    Accounts, Balances, Consent as ConsentData, ConsentRequest, Document, Links, Meta, Transactions,
};
use lendhub_domain::open_banking::test_accounts::{self, TestAccount};
use serde::Deserialize;
use serde_json::{Value, json};

use super::oidc::{Grant, bearer};
use super::{AISP, Bank, Consent, Refused, ledger, ob_error};

/// Transactions per page.
const PAGE: usize = 50;

pub(super) fn routes() -> Router<Bank> {
    Router::new()
        .route(
            &format!("{AISP}/account-access-consents"),
            post(create_consent),
        )
        .route(
            &format!("{AISP}/account-access-consents/{{id}}"),
            get(read_consent).delete(delete_consent),
        )
        .route(&format!("{AISP}/accounts"), get(accounts))
        .route(&format!("{AISP}/accounts/{{id}}/balances"), get(balances))
        .route(
            &format!("{AISP}/accounts/{{id}}/transactions"),
            get(transactions),
        )
        .route("/token", post(super::oidc::token))
}

const UNAUTHORISED: Refused = Refused(
    StatusCode::UNAUTHORIZED,
    "UK.OBIE.Header.Invalid",
    "a valid bearer token is required",
);

/// The client's own token, for the consent resources.
fn client(bank: &Bank, headers: &HeaderMap) -> Result<(), Refused> {
    match bearer(bank, headers) {
        Some(Grant::Client { scope, .. }) if scope.split(' ').any(|s| s == "accounts") => Ok(()),
        Some(_) => Err(Refused(
            StatusCode::FORBIDDEN,
            "UK.OBIE.Resource.InvalidScope",
            "the token does not allow this",
        )),
        None => Err(UNAUTHORISED),
    }
}

fn consent_document(bank: &Bank, data: &ConsentData) -> Value {
    json!({
        "Data": data,
        "Risk": {},
        "Links": { "Self": format!("{}{AISP}/account-access-consents/{}", bank.base, data.consent_id) },
        "Meta": { "TotalPages": 1 },
    })
}

async fn create_consent(State(bank): State<Bank>, headers: HeaderMap, body: Bytes) -> Response {
    let operation = "POST /account-access-consents";
    let received: Option<Value> = serde_json::from_slice(&body).ok();
    if let Err(refused) = client(&bank, &headers) {
        return refused.into_response();
    }
    let request = received
        .clone()
        .and_then(|v| serde_json::from_value::<ConsentRequest>(v).ok());
    let Some(request) = request.filter(|r| !r.data.permissions.is_empty()) else {
        let answer = json!({
            "Code": "400",
            "Message": "the consent request is not an OBReadConsent1",
            "Errors": [{ "ErrorCode": "UK.OBIE.Field.Invalid", "Message": "Data.Permissions is required" }],
        });
        return bank.answer(
            operation,
            &headers,
            received,
            StatusCode::BAD_REQUEST,
            answer,
        );
    };
    let now = bank.now();
    let data = ConsentData {
        consent_id: format!("aac-{}", lendhub_system::random_token(12)),
        status: "AwaitingAuthorisation".to_owned(),
        created: now,
        status_updated: now,
        permissions: request.data.permissions,
        expiration: Some(request.data.expiration),
    };
    let document = consent_document(&bank, &data);
    bank.books().consents.insert(
        data.consent_id.clone(),
        Consent {
            data,
            account: None,
        },
    );
    bank.answer(operation, &headers, received, StatusCode::CREATED, document)
}

async fn read_consent(
    State(bank): State<Bank>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Err(refused) = client(&bank, &headers) {
        return refused.into_response();
    }
    let Some(consent) = bank.books().consents.get(&id).cloned() else {
        return ob_error(
            StatusCode::NOT_FOUND,
            "UK.OBIE.Resource.NotFound",
            "no such consent",
        );
    };
    let document = consent_document(&bank, &consent.data);
    bank.answer(
        "GET /account-access-consents/{ConsentId}",
        &headers,
        None,
        StatusCode::OK,
        document,
    )
}

async fn delete_consent(
    State(bank): State<Bank>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Err(refused) = client(&bank, &headers) {
        return refused.into_response();
    }
    match bank.books().consents.remove(&id) {
        Some(_) => StatusCode::NO_CONTENT.into_response(),
        None => ob_error(
            StatusCode::NOT_FOUND,
            "UK.OBIE.Resource.NotFound",
            "no such consent",
        ),
    }
}

/// The account the payer's token may read, while its consent holds.
fn shared(bank: &Bank, headers: &HeaderMap) -> Result<&'static TestAccount, Refused> {
    let Some(Grant::Consent { consent_id, .. }) = bearer(bank, headers) else {
        return Err(UNAUTHORISED);
    };
    let consent = bank.books().consents.get(&consent_id).cloned();
    let Some(consent) = consent else {
        return Err(UNAUTHORISED);
    };
    let expired = consent.data.expiration.is_some_and(|at| at <= bank.now());
    if consent.data.status != "Authorised" || expired {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "UK.OBIE.Resource.InvalidConsentStatus",
            "the consent is not authorised, or has expired or been revoked",
        ));
    }
    consent
        .account
        .and_then(|key| test_accounts::find(key.0))
        .ok_or(UNAUTHORISED)
}

fn not_found() -> Response {
    ob_error(
        StatusCode::NOT_FOUND,
        "UK.OBIE.Resource.NotFound",
        "no such account",
    )
}

fn document<D: serde::Serialize>(data: D, this: String, next: Option<String>, pages: i32) -> Value {
    serde_json::to_value(Document {
        data,
        risk: None,
        links: Some(Links { this, next }),
        meta: Some(Meta {
            total_pages: Some(pages),
        }),
    })
    .unwrap_or(Value::Null)
}

async fn accounts(State(bank): State<Bank>, headers: HeaderMap) -> Response {
    let account = match shared(&bank, &headers) {
        Ok(a) => a,
        Err(refused) => return refused.into_response(),
    };
    let data = Accounts {
        account: vec![ledger::account(account)],
    };
    let body = document(data, format!("{}{AISP}/accounts", bank.base), None, 1);
    bank.answer("GET /accounts", &headers, None, StatusCode::OK, body)
}

async fn balances(
    State(bank): State<Bank>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let account = match shared(&bank, &headers) {
        Ok(a) if a.key == id => a,
        Ok(_) => return not_found(),
        Err(refused) => return refused.into_response(),
    };
    let data = Balances {
        balance: vec![ledger::balance(account, bank.now())],
    };
    let this = format!("{}{AISP}/accounts/{id}/balances", bank.base);
    let body = document(data, this, None, 1);
    bank.answer(
        "GET /accounts/{AccountId}/balances",
        &headers,
        None,
        StatusCode::OK,
        body,
    )
}

#[derive(Deserialize)]
struct Paging {
    page: Option<usize>,
}

async fn transactions(
    State(bank): State<Bank>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(paging): Query<Paging>,
) -> Response {
    let account = match shared(&bank, &headers) {
        Ok(a) if a.key == id => a,
        Ok(_) => return not_found(),
        Err(refused) => return refused.into_response(),
    };
    let all = ledger::transactions(account, bank.now());
    let pages = all.len().div_ceil(PAGE).max(1);
    let page = paging.page.unwrap_or(1).clamp(1, pages);
    let at = |p: usize| format!("{}{AISP}/accounts/{id}/transactions?page={p}", bank.base);
    let data = Transactions {
        transaction: all.into_iter().skip((page - 1) * PAGE).take(PAGE).collect(),
    };
    let next = (page < pages).then(|| at(page + 1));
    let body = document(data, at(page), next, pages as i32);
    bank.answer(
        "GET /accounts/{AccountId}/transactions",
        &headers,
        None,
        StatusCode::OK,
        body,
    )
}
