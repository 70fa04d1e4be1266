//! The model company register: the Companies House Public Data API's
//! `GET /company/{company_number}` (a company profile, or 404 with the
//! register's `company-profile-not-found` error), behind HTTP basic
//! authentication with the API key as user name and an empty password,
//! answering from the built-in register's entities
//! (`lendhub_domain::lending::register::synthetic`).
//!
//! Failures, injected:
//! - `00000429`: 429, as when the key's 600 requests per 5 minutes are spent;
//! - `00000503`: 503, as in a register outage, for that number alone;
//! - `PUT /_model/outage` with `{"status": 503}` (or any 4xx/5xx): every
//!   profile answers that until `DELETE /_model/outage`;
//! - `PUT /_model/delay` with `{"ms": 2000}`: every profile answers that
//!   much later (a slow register; an adapter's timeout), until
//!   `DELETE /_model/delay`.
//!
//! The admin endpoints take the same credentials.

use std::sync::Arc;

use axum::extract::{FromRef, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use lendhub_domain::lending::companies_house::CompanyProfile;
use lendhub_domain::lending::register::{synthetic, well_formed};
use serde_json::json;

use crate::credentials;
use crate::injected::Injected;

/// Number answering 429 (rate limited).
pub const RATE_LIMITED: &str = "00000429";
/// Number answering 503 (unavailable).
pub const UNAVAILABLE: &str = "00000503";

#[derive(Clone)]
struct Model {
    api_key: Arc<str>,
    injected: Injected,
}

impl FromRef<Model> for Injected {
    fn from_ref(model: &Model) -> Self {
        model.injected.clone()
    }
}

/// The register's routes, accepting `api_key`.
pub fn router(api_key: &str) -> Router {
    let model = Model {
        api_key: api_key.into(),
        injected: Injected::default(),
    };
    Router::new()
        .route("/company/{number}", get(company))
        .merge(Injected::routes())
        .layer(axum::middleware::from_fn_with_state(
            model.clone(),
            authenticate,
        ))
        .with_state(model)
}

/// The register's error document: `{"errors": [{"error": …, "type": "ch:service"}]}`.
fn error(status: StatusCode, code: &str) -> Response {
    (
        status,
        Json(json!({ "errors": [{ "error": code, "type": "ch:service" }] })),
    )
        .into_response()
}

fn authorised(model: &Model, headers: &HeaderMap) -> bool {
    credentials::basic(headers)
        .is_some_and(|(user, _)| !user.is_empty() && credentials::same(&user, &model.api_key))
}

/// Every route, the admin ones too, takes the register's credentials.
async fn authenticate(
    State(model): State<Model>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if authorised(&model, request.headers()) {
        next.run(request).await
    } else {
        unauthorised()
    }
}

fn unauthorised() -> Response {
    let mut response = error(StatusCode::UNAUTHORIZED, "invalid-authorization-header");
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Basic realm=\"companies-house\""),
    );
    response
}

async fn company(State(model): State<Model>, Path(number): Path<String>) -> Response {
    if let Some(status) = model.injected.apply().await {
        return error(status, "service-unavailable");
    }
    match number.as_str() {
        RATE_LIMITED => {
            let mut response = error(StatusCode::TOO_MANY_REQUESTS, "rate-limit-exceeded");
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("60"));
            return response;
        }
        UNAVAILABLE => return error(StatusCode::SERVICE_UNAVAILABLE, "service-unavailable"),
        _ => {}
    }
    match well_formed(&number).then(|| synthetic(&number)).flatten() {
        Some(entity) => Json(CompanyProfile::of(&entity)).into_response(),
        None => error(StatusCode::NOT_FOUND, "company-profile-not-found"),
    }
}
