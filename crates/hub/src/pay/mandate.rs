//! The payer's page for a mandate (`{pay_url}/mandates/{mnd_id}.{token}`):
//! what it lets the lender collect, and a button to withdraw it. Like a
//! payment's link, the HMAC in the address is the only credential.

use askama::Template;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::ids::MandateId;
use lendhub_domain::servicing::mandate::Mandate;

use super::state::PayState;
use crate::flows::mandates::revoke as revoke_mandate;
use crate::html::render;

#[derive(Template)]
#[template(path = "pay/mandate.html")]
struct MandatePage<'a> {
    status: &'static str,
    bank: &'a str,
    since: String,
    revoked: Option<String>,
    action: &'a str,
}

#[derive(Template)]
#[template(path = "pay/problem.html")]
struct ProblemPage<'a> {
    title: &'a str,
    message: &'a str,
}

fn problem(status: StatusCode, title: &str, message: &str) -> Response {
    render(status, &ProblemPage { title, message })
}

fn not_found() -> Response {
    problem(
        StatusCode::NOT_FOUND,
        "This link does not work",
        "It may have been copied incompletely. Ask whoever sent it for a new one.",
    )
}

fn unavailable(e: impl std::fmt::Display) -> Response {
    tracing::warn!(error = %e, "mandate page unavailable");
    problem(
        StatusCode::SERVICE_UNAVAILABLE,
        "Sorry, there is a problem",
        "We could not finish that just now. Nothing has changed: please try again in a moment.",
    )
}

/// The mandate `link` names, if the link is genuine.
async fn load(state: &PayState, link: &str) -> Result<Mandate, Response> {
    let Some(id) = state.links.open_pay_link::<MandateId>(link) else {
        return Err(not_found());
    };
    state
        .servicing
        .mandate_any_owner(&id)
        .await
        .map_err(unavailable)?
        .ok_or_else(not_found)
}

fn page(m: &Mandate, link: &str) -> Response {
    let action = format!("/pay/mandates/{link}");
    render(
        StatusCode::OK,
        &MandatePage {
            status: m.status.as_str(),
            bank: &m.payer_bank,
            since: lendhub_domain::people::date_at(m.created_at),
            revoked: m.revoked_at.map(lendhub_domain::people::date_at),
            action: &action,
        },
    )
}

/// `GET {pay_url}/mandates/{link}`.
pub async fn show(State(state): State<PayState>, Path(link): Path<String>) -> Response {
    match load(&state, &link).await {
        Ok(m) => page(&m, &link),
        Err(r) => r,
    }
}

/// `POST {pay_url}/mandates/{link}`: the payer withdraws it
/// (`mandate.revoked`). Again: it stays withdrawn.
pub async fn revoke(State(state): State<PayState>, Path(link): Path<String>) -> Response {
    let m = match load(&state, &link).await {
        Ok(m) => m,
        Err(r) => return r,
    };
    let now = match state.flows.now_for(&m.owner).await {
        Ok(now) => now,
        Err(e) => return unavailable(e),
    };
    match revoke_mandate(&state.flows, &m, now).await {
        Ok(Some(revoked)) => page(&revoked, &link),
        // Moved meanwhile (revoked in another tab): show how it stands.
        Ok(None) => match load(&state, &link).await {
            Ok(current) => page(&current, &link),
            Err(r) => r,
        },
        Err(e) => unavailable(e),
    }
}
