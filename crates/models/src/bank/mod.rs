//! The model bank: an account servicing payment service provider (ASPSP)
//! speaking the UK Open Banking Read/Write API v3.1.11 and its security
//! profile's OpenID Connect flows, so the adapter that talks to a real bank
//! is the one that talks to this one (issue #46).
//!
//! - `GET /.well-known/openid-configuration`: discovery.
//! - `POST /token`: client credentials (`client_secret_basic`) for the
//!   bank's own resources, and the authorization code the payer's consent
//!   yields, with an ID token carrying `openbanking_intent_id`.
//! - `GET /authorize`: the consent page, where a test payer chooses one of
//!   the test accounts (`lendhub_domain::open_banking::test_accounts`) and
//!   approves or declines; the answer goes to the registered redirect URI.
//! - `/open-banking/v3.1/aisp/…`: account-access consents, and the
//!   accounts, balances and transactions (paged by `Links.Next`) of the
//!   account the payer shared.
//! - `/open-banking/v3.1/pisp/…`: domestic payment consents, and the
//!   domestic payment made under one the payer authorised; what becomes of
//!   it depends on the account the payer paid from (`pis.rs`).
//! - `/open-banking/v3.1/pisp/domestic-vrp-consents`, `…/domestic-vrps`:
//!   variable recurring payment consents with control parameters, and the
//!   payments the client makes under one without the payer (`vrp.rs`);
//!   the token endpoint renews their tokens (`refresh_token`), rotating
//!   the refresh token each time (the spent one is refused).
//! - `/v3/payments/fps`, `/v2/Accounts/{id}/Transactions`: the lender's
//!   funding account and Faster Payments out of it, as ClearBank's API
//!   offers them, with signed webhooks (`fps.rs`: the payout rail).
//!
//! Failures, injected through the admin endpoints (the client's
//! credentials, as HTTP basic):
//! - `PUT /_model/outage` `{"status": 503}`: every resource and the token
//!   endpoint answer that, until `DELETE /_model/outage` (`GET` says how
//!   many requests it refused);
//! - `PUT /_model/delay` `{"ms": 2000}`: every answer that much later,
//!   until `DELETE /_model/delay`;
//! - `POST /_model/consents/{id}/revoke`: the payer revokes a consent
//!   (account access or VRP) at their bank;
//! - `POST /_model/payments/{id}/hold`: a payment stays where it is, until
//!   `DELETE /_model/payments/{id}/hold`;
//! - `POST /_model/payments/{id}/settle` and `…/notify`: the bank moves a
//!   payment on by itself and posts its event notification, or posts it
//!   again (`events.rs`);
//! - declining on the consent page: the redirect carries
//!   `error=access_denied`.
//!
//! `GET /_model/exchanges` lists the JSON the bank received and sent per
//! operation, which tests check against the standard's OpenAPI documents.

mod ais;
mod authorise;
mod events;
pub mod fps;
mod kept;

pub use kept::Keeper;
mod ledger;
mod oidc;
mod pis;
mod signatures;
pub mod standing;
mod vrp;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum::extract::{FromRef, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use time::OffsetDateTime;

use lendhub_domain::clock::Clock;

use crate::injected::Injected;

/// Where the standard's resources are served, below the bank's base URL.
pub const AISP: &str = "/open-banking/v3.1/aisp";
pub const PISP: &str = "/open-banking/v3.1/pisp";

/// Who may use the bank: the one client registered with it.
#[derive(Clone, Debug)]
pub struct Registration {
    pub client_id: String,
    pub client_secret: String,
    /// The redirect URIs registered for the client; the consent page sends
    /// the payer to no other.
    pub redirect_uris: Vec<String>,
    /// The public half (PEM) of the key the client signs its payment
    /// requests with (`x-jws-signature`).
    pub signing_key_pem: String,
    /// Where the bank posts its event notifications for the client
    /// (`events.rs`); none, none are sent.
    pub event_notification_url: Option<String>,
    /// Where the bank posts its payout rail's webhooks (`fps.rs`); none,
    /// none are sent.
    pub rail_webhook_url: Option<String>,
}

impl Registration {
    /// The client lendhub is when it reaches the model bank: it signs with
    /// the model key (`crate::keys`).
    pub fn lendhub(client_id: String, client_secret: String, redirect_uris: Vec<String>) -> Self {
        Self {
            client_id,
            client_secret,
            redirect_uris,
            signing_key_pem: crate::keys::LENDHUB_SIGNING_PUBLIC_PEM.to_owned(),
            event_notification_url: None,
            rail_webhook_url: None,
        }
    }

    /// The client also takes the bank's event notifications at `url`.
    pub fn notifying(self, url: String) -> Self {
        Self {
            event_notification_url: Some(url),
            ..self
        }
    }

    /// The client also takes the payout rail's webhooks at `url`.
    pub fn rail_webhooks(self, url: String) -> Self {
        Self {
            rail_webhook_url: Some(url),
            ..self
        }
    }
}

#[derive(Clone)]
struct Bank {
    /// The bank's base URL, as its discovery document and links name it.
    base: Arc<str>,
    registration: Arc<Registration>,
    books: Arc<Mutex<Books>>,
    /// Set by every request that may have changed the books; the writer
    /// (`kept.rs`) clears it.
    changed: Arc<AtomicBool>,
    injected: Injected,
    /// How the payout rail behaves, as testers set it (`fps.rs`).
    rail: Arc<Mutex<fps::Rail>>,
    /// Its time: a VRP consent's periods, and when tokens and pages lapse.
    clock: Arc<dyn Clock>,
}

impl FromRef<Bank> for Injected {
    fn from_ref(bank: &Bank) -> Self {
        bank.injected.clone()
    }
}

/// What the bank keeps: consents, the consent pages under way, codes and
/// tokens issued, and the exchanges seen (not kept on disk).
#[derive(Default, Serialize, Deserialize)]
struct Books {
    consents: HashMap<String, Consent>,
    pages: HashMap<String, authorise::Page>,
    codes: HashMap<String, oidc::Code>,
    tokens: HashMap<String, oidc::Grant>,
    payment_consents: HashMap<String, pis::PaymentConsent>,
    payments: HashMap<String, pis::Submitted>,
    vrp_consents: HashMap<String, vrp::VrpConsent>,
    vrps: HashMap<String, vrp::SubmittedVrp>,
    /// Refresh tokens issued with a VRP consent's first token, by token.
    refresh_tokens: HashMap<String, String>,
    /// Faster Payments out of the lender's funding account, by end-to-end
    /// id.
    #[serde(default)]
    fps: HashMap<String, fps::FpsPayment>,
    /// End-to-end ids the lender's statements leave out
    /// (`POST /_model/statement/{id}/omit`).
    #[serde(default)]
    omitted: std::collections::HashSet<String>,
    /// POSTs answered, by operation and idempotency key.
    idempotent: HashMap<String, pis::Answered>,
    #[serde(skip)]
    exchanges: Vec<Exchange>,
}

impl Books {
    /// Forgets what has lapsed by `now` and can never be used again:
    /// consent pages, codes and tokens past their expiry, and
    /// account-access consents past theirs. A lapsed token is refused as
    /// an unknown one is; a VRP consent's payer renews with the refresh
    /// token, which stays.
    fn forget_lapsed(&mut self, now: OffsetDateTime) {
        self.pages.retain(|_, page| page.expires() > now);
        self.codes.retain(|_, code| code.expires > now);
        self.tokens.retain(|_, grant| grant.expires() > now);
        self.consents
            .retain(|_, c| c.data.expiration.is_none_or(|until| until > now));
    }
}

/// An account-access consent and, once authorised, the account shared.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Consent {
    data: lendhub_domain::open_banking::ais::Consent,
    account: Option<AccountKey>,
}

/// One operation's JSON, as received and as answered.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Exchange {
    /// The standard's path template and method: `POST /account-access-consents`.
    pub operation: String,
    pub request: Option<Value>,
    /// The request's headers the standard names (`x-fapi-*`,
    /// `x-idempotency-key`, whether `Authorization` was sent).
    pub headers: HashMap<String, String>,
    pub status: u16,
    pub response: Option<Value>,
}

/// How many exchanges the bank remembers.
const EXCHANGES_KEPT: usize = 2_000;

/// The bank's routes, for `registration`, serving at `base`, on the
/// system's clock.
pub fn router(base: &str, registration: Registration) -> Router {
    router_on(base, registration, Arc::new(lendhub_system::SystemClock))
}

/// `router`, reading `clock`: embedded in lendhub, the bank shares the
/// server's clock, so a test that moves it moves the bank's periods too.
pub fn router_on(base: &str, registration: Registration, clock: Arc<dyn Clock>) -> Router {
    routes(bank(base, registration, clock, Books::default()))
}

/// The books a bank starts from: empty (the default), or those kept in a
/// file, which the bank then keeps writing (`kept.rs`).
#[derive(Default)]
pub struct Opening {
    books: Books,
    file: Option<std::path::PathBuf>,
}

impl Opening {
    /// Books kept in `file`: read now (none yet is empty books), written
    /// after every change once the bank runs, so a restart finds the
    /// consents, mandates and payments it had.
    pub fn kept_in(file: &std::path::Path) -> std::io::Result<Self> {
        Ok(Self {
            books: kept::load(file)?,
            file: Some(file.to_owned()),
        })
    }
}

/// `router_on`, opening on `opening`'s books; with books kept in a file,
/// the [`Keeper`] that writes them, for the caller to run until it stops.
pub fn router_opening(
    base: &str,
    registration: Registration,
    clock: Arc<dyn Clock>,
    opening: Opening,
) -> (Router, Option<Keeper>) {
    let bank = bank(base, registration, clock, opening.books);
    let keeper = opening.file.map(|path| Keeper {
        path,
        books: bank.books.clone(),
        changed: bank.changed.clone(),
        clock: bank.clock.clone(),
    });
    (routes(bank), keeper)
}

fn bank(base: &str, registration: Registration, clock: Arc<dyn Clock>, books: Books) -> Bank {
    let bank = Bank {
        base: base.trim_end_matches('/').into(),
        registration: Arc::new(registration),
        books: Arc::new(Mutex::new(books)),
        changed: Arc::default(),
        injected: Injected::default(),
        rail: Arc::default(),
        clock,
    };
    fps::resume(&bank);
    bank
}

fn routes(bank: Bank) -> Router {
    let admin = Injected::routes()
        .route("/_model/exchanges", get(exchanges))
        .route("/_model/consents/{id}/revoke", post(revoke))
        .merge(pis::admin())
        .merge(events::admin())
        .merge(fps::admin())
        .layer(axum::middleware::from_fn_with_state(
            bank.clone(),
            oidc::client_only,
        ));
    let resources = ais::routes()
        .merge(pis::routes())
        .merge(vrp::routes())
        .layer(axum::middleware::from_fn_with_state(bank.clone(), injected));
    Router::new()
        .route("/.well-known/openid-configuration", get(oidc::discovery))
        .route("/jwks", get(signatures::jwks))
        .route("/authorize", get(authorise::show).post(authorise::answer))
        .merge(resources)
        .merge(fps::routes())
        .merge(admin)
        .with_state(bank)
}

/// Why a request may not have what it asks: the standard's error, answered.
struct Refused(StatusCode, &'static str, &'static str);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        ob_error(self.0, self.1, self.2)
    }
}

/// The standard's error document (`OBErrorResponse1`).
fn ob_error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = json!({
        "Code": status.as_u16().to_string(),
        "Message": message,
        "Errors": [{ "ErrorCode": code, "Message": message }],
    });
    (status, Json(body)).into_response()
}

/// Outages and delays, before any resource answers.
async fn injected(
    State(bank): State<Bank>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if let Some(status) = bank.injected.apply().await {
        return ob_error(status, "UK.OBIE.UnexpectedError", "the bank is unavailable");
    }
    next.run(request).await
}

impl Bank {
    fn now(&self) -> OffsetDateTime {
        self.clock.now()
    }

    /// The books, to read or change: the writer will write them.
    fn books(&self) -> parking_lot::MutexGuard<'_, Books> {
        self.changed
            .store(true, std::sync::atomic::Ordering::Release);
        self.books.lock()
    }

    /// Records an exchange that carries no JSON either way (a `DELETE`).
    fn record(&self, operation: &str, headers: &HeaderMap, status: StatusCode) {
        self.respond(operation, headers, None, status, Value::Null, false);
    }

    /// Records an exchange and returns its answer, echoing the request's
    /// `x-fapi-interaction-id` (or a new one) as the standard asks.
    fn answer(
        &self,
        operation: &str,
        headers: &HeaderMap,
        request: Option<Value>,
        status: StatusCode,
        response: Value,
    ) -> Response {
        self.respond(operation, headers, request, status, response, false)
    }

    /// `answer`, signed with the bank's key (`x-jws-signature`), as the
    /// payment resources are.
    fn answer_signed(
        &self,
        operation: &str,
        headers: &HeaderMap,
        request: Option<Value>,
        status: StatusCode,
        response: Value,
    ) -> Response {
        self.respond(operation, headers, request, status, response, true)
    }

    fn respond(
        &self,
        operation: &str,
        headers: &HeaderMap,
        request: Option<Value>,
        status: StatusCode,
        response: Value,
        signed: bool,
    ) -> Response {
        let recorded = (!response.is_null()).then(|| response.clone());
        let interaction = self.record_exchange(operation, headers, request, status, recorded);
        let mut answer = if signed {
            signatures::signed(status, &response)
        } else {
            (status, Json(response)).into_response()
        };
        if let Ok(value) = HeaderValue::from_str(&interaction) {
            answer.headers_mut().insert("x-fapi-interaction-id", value);
        }
        answer
    }

    /// Records an exchange, with the headers the standard names (`x-fapi-*`,
    /// `x-idempotency-key`, `x-jws-signature`, whether `Authorization` was
    /// sent); its interaction id, the request's or a new one.
    fn record_exchange(
        &self,
        operation: &str,
        headers: &HeaderMap,
        request: Option<Value>,
        status: StatusCode,
        response: Option<Value>,
    ) -> String {
        let named: HashMap<String, String> = headers
            .iter()
            .filter(|(n, _)| {
                n.as_str().starts_with("x-fapi-")
                    || [
                        "x-idempotency-key",
                        "x-jws-signature",
                        "x-request-id",
                        "digitalsignature",
                    ]
                    .contains(&n.as_str())
            })
            .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .chain(
                headers
                    .contains_key(header::AUTHORIZATION)
                    .then(|| ("authorization".to_owned(), "present".to_owned())),
            )
            .collect();
        let interaction = named
            .get("x-fapi-interaction-id")
            .cloned()
            .unwrap_or_else(|| lendhub_system::random_token(16));
        // Exchanges are not kept on disk: no need to write the books.
        let mut books = self.books.lock();
        if books.exchanges.len() >= EXCHANGES_KEPT {
            books.exchanges.remove(0);
        }
        books.exchanges.push(Exchange {
            operation: operation.to_owned(),
            request,
            headers: named,
            status: status.as_u16(),
            response,
        });
        interaction
    }
}

async fn exchanges(State(bank): State<Bank>) -> Json<Vec<Exchange>> {
    Json(bank.books.lock().exchanges.clone())
}

/// The payer revokes the consent at their bank (account access, or a VRP
/// consent): its tokens stop working, and no payment is made under it.
async fn revoke(State(bank): State<Bank>, Path(id): Path<String>) -> Response {
    let now = bank.now();
    let mut books = bank.books();
    if let Some(consent) = books.consents.get_mut(&id) {
        consent.data.status = "Revoked".to_owned();
        consent.data.status_updated = now;
    } else if let Some(consent) = books.vrp_consents.get_mut(&id) {
        consent.revoked = true;
        consent.data.status_updated = now;
    } else {
        return ob_error(
            StatusCode::NOT_FOUND,
            "UK.OBIE.Resource.NotFound",
            "no such consent",
        );
    }
    StatusCode::NO_CONTENT.into_response()
}

/// A test account a consent or payment names (`test_accounts`), kept on
/// disk as its key and read back as the account's own `&'static` key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct AccountKey(pub &'static str);

impl Serialize for AccountKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for AccountKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let key = String::deserialize(d)?;
        lendhub_domain::open_banking::test_accounts::find(&key)
            .map(|a| AccountKey(a.key))
            .ok_or_else(|| serde::de::Error::custom(format!("{key} is no test account")))
    }
}
