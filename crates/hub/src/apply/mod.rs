//! The hosted application journey on `{apply_url}` (hub seed, Partner-facing
//! flows → Hosted handoff; issue #15). The partner sends the applicant to
//! the application's `handoff_url`; they sign in at lendhub's identity
//! provider (the journey is its relying party), confirm the company and
//! their role (the director check), connect a bank, consent, see the
//! decision, accept and sign, and are sent back to the partner's
//! `redirect_uri` with `application_id` appended.
//!
//! Each step runs the same code as the white-label call that drives it
//! (docs/guide/src/hosted-journey.md has the table), so the state machines, events and
//! webhooks are the REST tier's own. One handler file per page.

mod accept;
mod bank;
mod callback;
mod company;
mod consents;
mod documents;
mod error;
mod finish;
mod overview;
mod pages;
mod resume;
mod session;
mod start;
pub(crate) mod state;

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use lendhub_domain::lending::application::Status;
use lendhub_domain::lending::journey::Step;

pub use documents::{PRIVACY_PATH, TERMS_PATH};
use session::Visit;
use state::JourneyState;

/// Where the journey is served on the hub (`{apply_url}` is
/// `{base_url}/apply`).
pub const PREFIX: &str = "/apply";

pub fn router(state: JourneyState) -> Router {
    Router::new()
        .route("/apply/start/{link}", get(start::start))
        .route("/apply/callback", get(callback::callback))
        .route("/apply/{id}", get(overview::show))
        .route("/apply/{id}/resume", get(resume::resume))
        .route(
            "/apply/{id}/company",
            get(company::show).post(company::submit),
        )
        .route("/apply/{id}/bank", get(bank::show).post(bank::submit))
        .route("/apply/{id}/bank/return", get(bank::returned))
        .route(
            "/apply/{id}/consents",
            get(consents::show).post(consents::submit),
        )
        .route("/apply/{id}/accept", axum::routing::post(accept::accept))
        .route("/apply/{id}/finish", get(finish::finish))
        .route("/apply/{id}/agreement", get(documents::agreement))
        .route("/apply/{id}/agreement.pdf", get(documents::agreement_pdf))
        .route("/legal/{name}", get(documents::legal))
        // Every form is a few short fields.
        .layer(axum::extract::DefaultBodyLimit::max(16 * 1024))
        .with_state(state)
}

/// The step a visit is at: the journey's, unless the application has moved
/// past submission some other way (the white-label call).
fn step(visit: &Visit) -> Step {
    if visit.application.status == Status::Created {
        visit.journey.next_step()
    } else {
        Step::Outcome
    }
}

fn page(application_id: &str, page: &str) -> String {
    format!("{PREFIX}/{application_id}/{page}")
}

/// 303 to the journey's overview, which shows the page of the current step.
fn to_overview(application_id: &str) -> Response {
    Redirect::to(&format!("{PREFIX}/{application_id}")).into_response()
}

/// 303 to `to`, setting the journey's cookie.
fn see_other_with_cookie(to: &str, cookie: Option<HeaderValue>) -> Response {
    let mut response = Redirect::to(to).into_response();
    if let Some(c) = cookie {
        response.headers_mut().insert(header::SET_COOKIE, c);
    }
    response
}

fn head(visit: &Visit) -> pages::Header<'_> {
    let a = &visit.application;
    pages::Header {
        company_name: &a.company_name,
        company_number: &a.company_number,
        amount: lendhub_domain::people::money(a.amount),
        term_months: a.term_months,
        reference: a.reference.as_deref(),
        brand: visit.brand.as_ref(),
    }
}

/// The banks the applicant may connect, as (id, name): their
/// environment's.
fn institutions(state: &JourneyState, visit: &Visit) -> Vec<(String, String)> {
    state.accounts.for_owner(&visit.journey.owner).banks()
}

/// Whether the journey's cookie needs `Secure`.
fn secure(state: &JourneyState) -> bool {
    state.links.urls.apply().starts_with("https://")
}
