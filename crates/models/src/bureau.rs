//! The model credit bureau: lendhub's credit-report API
//! (`lendhub_domain::lending::checks_api`),
//! `GET /v1/companies/{company_number}/credit-report` behind
//! `Authorization: Bearer <api key>`, answering each well-formed company
//! number with the profile the sandbox derives from it
//! (`CreditFile::synthetic`), so a company scores alike everywhere.
//!
//! Failures, injected:
//! - `00000503`: 503, for that number alone;
//! - a number that is not eight characters of `A-Z0-9`: 404 `not_found`;
//! - `PUT /_model/outage`, `PUT /_model/delay` as the other model servers.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use lendhub_domain::lending::checks_api::CreditReport;
use lendhub_domain::lending::register::well_formed;
use lendhub_domain::lending::underwriting::CreditFile;

use crate::keyed::{Keyed, problem};

/// The company number whose report answers 503.
pub const UNAVAILABLE: &str = "00000503";

/// The bureau's routes, accepting `api_key`.
pub fn router(api_key: &str) -> Router {
    Keyed::new(api_key)
        .serve(Router::new().route("/v1/companies/{number}/credit-report", get(report)))
}

async fn report(State(keyed): State<Keyed>, Path(number): Path<String>) -> Response {
    if let Some(status) = keyed.injected.apply().await {
        return problem(status, "unavailable", "the bureau is unavailable");
    }
    if number == UNAVAILABLE {
        return problem(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the bureau is unavailable",
        );
    }
    if !well_formed(&number) {
        return problem(
            StatusCode::NOT_FOUND,
            "not_found",
            "no credit file for that number",
        );
    }
    let file = CreditFile::synthetic(&number);
    axum::Json(CreditReport {
        company_number: number,
        score: file.score,
        credit_limit_pence: file.limit_pence,
    })
    .into_response()
}
