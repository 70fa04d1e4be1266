//! One request to a counterparty, timed. Every adapter sends through
//! [`send`], so `/metrics` shows what each hop costs and how often it
//! fails, per counterparty and operation (the API's own path template):
//!
//! - `counterparty_request_duration_seconds{counterparty, operation}`: from
//!   sending to the answer's status line and headers (the body is read
//!   after);
//! - `counterparty_requests_total{counterparty, operation, outcome}`:
//!   `answered` (any status but a 5xx or 429), `unavailable` (5xx, 429),
//!   `timeout`, `unreachable`.
//!
//! The operator reads them to see which counterparty is slow or down; the
//! decisions benchmark reads them for the cost of each adapter hop.

use std::time::Instant;

use reqwest::{RequestBuilder, Response, StatusCode};

pub const DURATION: &str = "counterparty_request_duration_seconds";
pub const REQUESTS: &str = "counterparty_requests_total";

/// The company register.
pub const REGISTER: &str = "company_register";
/// A bank, over UK Open Banking.
pub const BANK: &str = "open_banking";
pub const PERSON_CHECKS: &str = "person_checks";
pub const CREDIT_REPORTS: &str = "credit_reports";
/// The payout rail (the lender's clearing bank).
pub const PAYOUT_RAIL: &str = "payout_rail";

/// Says what the two metrics are, for `/metrics`' HELP lines.
pub fn describe() {
    metrics::describe_histogram!(
        DURATION,
        metrics::Unit::Seconds,
        "Time from sending a request to a counterparty to its answer's headers, by counterparty and operation."
    );
    metrics::describe_counter!(
        REQUESTS,
        "Requests to counterparties, by counterparty, operation and outcome."
    );
}

/// Sends `request` to `counterparty` as `operation` (`GET /accounts`), and
/// records how long the answer took and how it ended.
pub async fn send(
    counterparty: &'static str,
    operation: &str,
    request: RequestBuilder,
) -> Result<Response, reqwest::Error> {
    let started = Instant::now();
    let answer = request.send().await;
    let took = started.elapsed();
    let outcome = match &answer {
        Ok(r) if r.status().is_server_error() || r.status() == StatusCode::TOO_MANY_REQUESTS => {
            "unavailable"
        }
        Ok(_) => "answered",
        Err(e) if e.is_timeout() => "timeout",
        Err(_) => "unreachable",
    };
    let operation = operation.to_owned();
    metrics::histogram!(DURATION, "counterparty" => counterparty, "operation" => operation.clone())
        .record(took);
    metrics::counter!(REQUESTS, "counterparty" => counterparty, "operation" => operation, "outcome" => outcome)
        .increment(1);
    answer
}
