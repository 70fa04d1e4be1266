//! The model identity provider: lendhub's person-checks API
//! (`lendhub_domain::lending::checks_api`), `POST /v1/person-checks` behind
//! `Authorization: Bearer <api key>`, answering from the magic surnames of
//! `lendhub_domain::lending::kyc::synthetic`: `Mismatch` (identity not
//! matched), `Sanctioned`, `Exposed` (a politically exposed person),
//! `Outsider` (not an officer of the company named); anyone else passes.
//!
//! Failures, injected:
//! - the surname `Unavailable`: 503, for that person alone;
//! - `PUT /_model/outage` `{"status": 503}` (any 4xx/5xx) until
//!   `DELETE /_model/outage`; `PUT /_model/delay` `{"ms": 2000}` until
//!   `DELETE /_model/delay`.
//!
//! A body that is not the API's (an unknown field, a date that is not
//! `YYYY-MM-DD`) is 400 `invalid_request`: the model holds callers to the
//! shape.

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use lendhub_domain::lending::checks_api::{PersonCheckAnswer, PersonCheckRequest};
use lendhub_domain::lending::kyc;

use crate::keyed::{Keyed, problem};

/// The surname whose check answers 503.
pub const UNAVAILABLE: &str = "Unavailable";

/// The provider's routes, accepting `api_key`.
pub fn router(api_key: &str) -> Router {
    Keyed::new(api_key).serve(Router::new().route("/v1/person-checks", post(check)))
}

async fn check(State(keyed): State<Keyed>, body: Bytes) -> Response {
    if let Some(status) = keyed.injected.apply().await {
        return problem(status, "unavailable", "the provider is unavailable");
    }
    let request: PersonCheckRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => return problem(StatusCode::BAD_REQUEST, "invalid_request", &e.to_string()),
    };
    if request.last_name.eq_ignore_ascii_case(UNAVAILABLE) {
        return problem(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the provider is unavailable",
        );
    }
    let company = request.company_number.is_some();
    let findings = kyc::synthetic(&request.person(), company);
    let answer = PersonCheckAnswer {
        id: format!("chk_{}", lendhub_system::random_token(12)),
        identity_matched: findings.identity_matched,
        sanctions_match: findings.sanctions_match,
        politically_exposed: findings.politically_exposed,
        director: findings.director,
    };
    axum::Json(answer).into_response()
}
