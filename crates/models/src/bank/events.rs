//! Event notifications (the Event Notification API, v3.1.11): when the
//! bank moves a payment on its own, not because the client read it, it
//! posts a signed resource-update (a Security Event Token, RFC 8417,
//! `application/jwt`, PS256 with the key its JWKS publishes) to the
//! notification URL registered for the client. The token names the
//! payment; the client reads it to learn what became of it.
//!
//! Admin routes (the client's credentials, as HTTP basic):
//! - `POST /_model/payments/{id}/settle`: the bank's settlement run reaches
//!   the payment (a single payment or a VRP) now: it moves on as a read
//!   would move it (settled, or rejected for `low`), held or not, and the
//!   bank notifies;
//! - `POST /_model/payments/{id}/notify`: the notification sent again, as
//!   a bank that retries does.
//!
//! Both answer once the client answered the notification:
//! `{"notified": <its status>}`, or `{"notified": null}` when no URL is
//! registered or the client could not be reached.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use lendhub_domain::open_banking::events::{
    DOMESTIC_PAYMENT, DOMESTIC_VRP, Events, Link, Notification, ResourceUpdate, SUBJECT_TYPE,
    Subject,
};
use serde_json::json;

use super::pis::{next_status, not_found};
use super::{Bank, PISP};
use crate::keys;

/// The API version the links name.
const VERSION: &str = "v3.1";

/// The `x-fapi-financial-id` the model bank sends: its organisation.
const FINANCIAL_ID: &str = "model-bank";

pub(super) fn admin() -> axum::Router<Bank> {
    axum::Router::new()
        .route("/_model/payments/{id}/settle", post(settle))
        .route("/_model/payments/{id}/notify", post(notify))
}

/// A payment the bank knows, as a resource type and its URL.
fn resource(bank: &Bank, id: &str) -> Option<(&'static str, String)> {
    let books = bank.books();
    if books.payments.contains_key(id) {
        Some((
            DOMESTIC_PAYMENT,
            format!("{}{PISP}/domestic-payments/{id}", bank.base),
        ))
    } else if books.vrps.contains_key(id) {
        Some((
            DOMESTIC_VRP,
            format!("{}{PISP}/domestic-vrps/{id}", bank.base),
        ))
    } else {
        None
    }
}

async fn settle(State(bank): State<Bank>, Path(id): Path<String>) -> Response {
    let now = bank.now();
    {
        let mut books = bank.books();
        if let Some(payment) = books.payments.get_mut(&id) {
            payment.held = false;
            payment.data.status = next_status(payment.account, payment.data.status);
            payment.data.status_updated = now;
        } else if let Some(payment) = books.vrps.get_mut(&id) {
            payment.data.status = next_status(payment.account, payment.data.status);
            payment.data.status_updated = now;
        } else {
            return not_found("payment");
        }
    }
    notify(State(bank), Path(id)).await
}

async fn notify(State(bank): State<Bank>, Path(id): Path<String>) -> Response {
    let Some((resource_type, link)) = resource(&bank, &id) else {
        return not_found("payment");
    };
    let status = bank.notify(resource_type, &id, &link).await;
    Json(json!({ "notified": status })).into_response()
}

impl Bank {
    /// Posts a resource-update for `resource_type` `id` (at `link`) to the
    /// client's notification URL, recorded as an exchange; the client's
    /// answer's status, if it gave one.
    async fn notify(&self, resource_type: &str, id: &str, link: &str) -> Option<u16> {
        let url = self.registration.event_notification_url.clone()?;
        let now = self.now().unix_timestamp();
        let claims = Notification {
            iss: self.base.to_string(),
            iat: now,
            jti: lendhub_system::random_token(16),
            aud: self.registration.client_id.clone(),
            sub: link.to_owned(),
            txn: lendhub_system::random_token(16),
            toe: now,
            events: Events {
                resource_update: ResourceUpdate {
                    subject: Subject {
                        subject_type: SUBJECT_TYPE.to_owned(),
                        resource_id: id.to_owned(),
                        resource_type: resource_type.to_owned(),
                        links: vec![Link {
                            version: VERSION.to_owned(),
                            link: link.to_owned(),
                        }],
                    },
                },
            },
        };
        let mut header = Header::new(Algorithm::PS256);
        header.kid = Some(keys::MODEL_BANK_KID.to_owned());
        header.typ = Some("JWT".to_owned());
        let key = EncodingKey::from_rsa_pem(keys::MODEL_BANK_SIGNING_PEM.as_bytes()).ok()?;
        let token = jsonwebtoken::encode(&header, &claims, &key).ok()?;
        let interaction = lendhub_system::random_uuid();
        let answer = reqwest::Client::new()
            .post(&url)
            .header("content-type", "application/jwt")
            .header("x-fapi-financial-id", FINANCIAL_ID)
            .header("x-fapi-interaction-id", &interaction)
            .body(token)
            .timeout(std::time::Duration::from_secs(10))
            .send()
            .await;
        let status = answer.ok().map(|a| a.status());
        let mut sent = HeaderMap::new();
        sent.insert(
            "x-fapi-financial-id",
            HeaderValue::from_static(FINANCIAL_ID),
        );
        if let Ok(value) = HeaderValue::from_str(&interaction) {
            sent.insert("x-fapi-interaction-id", value);
        }
        // Recorded as the client answered (502: it could not be reached).
        self.record_exchange(
            "POST /event-notifications",
            &sent,
            serde_json::to_value(&claims).ok(),
            status.unwrap_or(StatusCode::BAD_GATEWAY),
            None,
        );
        status.map(|s| s.as_u16())
    }
}
