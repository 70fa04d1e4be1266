use axum::Form;
use axum::extract::rejection::FormRejection;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::journey::Step;
use lendhub_store::WriteSet;
use serde::Deserialize;

use super::error::JourneyError;
use super::pages::{self, render};
use super::session::{Visit, form_token};
use super::state::JourneyState;
use super::{head, page, step, to_overview};

#[derive(Deserialize, Default)]
pub struct BankForm {
    #[serde(default)]
    csrf: String,
    bank: Option<String>,
}

/// `GET {apply_url}/{id}/bank`: the banks open banking can connect.
pub async fn show(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    if step(&visit) != Step::Bank {
        return Ok(to_overview(&id));
    }
    form(&state, &visit, Vec::new()).await
}

async fn form(
    state: &JourneyState,
    visit: &Visit,
    errors: Vec<String>,
) -> Result<Response, JourneyError> {
    let banks = super::institutions(state).await?;
    let status = pages::form_status(&errors);
    Ok(render(
        status,
        &pages::Bank {
            head: head(&visit.application),
            action: page(visit.application.id.as_str(), "bank"),
            csrf: form_token(state, &visit.journey),
            banks,
            errors,
        },
    ))
}

/// `POST {apply_url}/{id}/bank`: the applicant connects a bank (the
/// simulated open-banking consent); its account is read at submission, and
/// the loan is paid into it.
pub async fn submit(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    input: Result<Form<BankForm>, FormRejection>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    let Form(input) = input.unwrap_or_default();
    visit.check_form(&state, &input.csrf)?;
    if step(&visit) != Step::Bank {
        return Ok(to_overview(&id));
    }
    let chosen = input.bank.unwrap_or_default();
    let known = super::institutions(&state)
        .await?
        .iter()
        .any(|(bank, _)| *bank == chosen);
    if !known {
        return form(&state, &visit, vec!["Choose the company's bank.".into()]).await;
    }
    let next = visit.journey.bank_connected(&chosen, visit.now);
    visit.commit(&state, next, WriteSet::default()).await?;
    Ok(Redirect::to(&page(&id, "consents")).into_response())
}
