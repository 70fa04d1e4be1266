use axum::Form;
use axum::extract::rejection::FormRejection;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::journey::Step;
use serde::Deserialize;

use super::error::JourneyError;
use super::pages::{self, render};
use super::session::{Visit, form_token};
use super::state::JourneyState;
use super::{head, page, step, to_overview};
use crate::flows::decide::decide;

#[derive(Deserialize, Default)]
pub struct ConsentsForm {
    #[serde(default)]
    csrf: String,
    credit_search: Option<String>,
    open_banking: Option<String>,
    terms: Option<String>,
}

/// `GET {apply_url}/{id}/consents`.
pub async fn show(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    if step(&visit) != Step::Consents {
        return Ok(to_overview(&id));
    }
    form(&state, &visit, Vec::new()).await
}

async fn form(
    state: &JourneyState,
    visit: &Visit,
    errors: Vec<String>,
) -> Result<Response, JourneyError> {
    let shared = visit.journey.shared_account.as_ref();
    let bank = shared.map_or("", |a| a.bank.as_str());
    let bank_name = super::institutions(state, visit)
        .into_iter()
        .find_map(|(id, name)| (id == bank).then_some(name))
        .unwrap_or_else(|| bank.to_owned());
    let bank_name = match shared.and_then(|a| a.name.as_deref()) {
        Some(account) => format!("{bank_name}: {account}"),
        None => bank_name,
    };
    let status = pages::form_status(&errors);
    Ok(render(
        status,
        &pages::Consents {
            head: head(visit),
            terms: super::documents::TERMS_PATH,
            privacy: super::documents::PRIVACY_PATH,
            action: page(visit.application.id.as_str(), "consents"),
            csrf: form_token(state, &visit.journey),
            bank_name,
            errors,
        },
    ))
}

/// `POST {apply_url}/{id}/consents`: with every consent given, the
/// application is submitted (`application.submitted`) and decided at once
/// (`decision.completed`) by the white-label submission's code, with the
/// journey's director check and connected bank.
pub async fn submit(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    input: Result<Form<ConsentsForm>, FormRejection>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    let Form(input) = input.unwrap_or_default();
    visit.check_form(&state, &input.csrf)?;
    if step(&visit) != Step::Consents {
        return Ok(to_overview(&id));
    }
    let mut errors = Vec::new();
    for (given, missing) in [
        (
            &input.credit_search,
            "Agree to the credit search to continue.",
        ),
        (
            &input.open_banking,
            "Agree to us reading the connected account to continue.",
        ),
        (
            &input.terms,
            "Confirm you have read the terms and the privacy notice.",
        ),
    ] {
        if given.as_deref() != Some("yes") {
            errors.push(missing.to_owned());
        }
    }
    if !errors.is_empty() {
        return form(&state, &visit, errors).await;
    }
    let journey = &visit.journey;
    let (Some(bank), Some(check)) = (&journey.bank, &journey.verification_id) else {
        return Ok(to_overview(&id));
    };
    let banking = journey.shared_account.as_ref().map(|a| a.banking);
    let owner = &visit.journey.owner;
    let identity = state
        .lending
        .verification(owner, check)
        .await?
        .map(|v| v.status);
    let (_, writes) = decide(
        &state.flows,
        &visit.application,
        (bank, banking),
        identity,
        visit.now,
    )
    .await
    .map_err(|e| JourneyError::from_flow(&id, e))?;
    let next = visit.journey.submitted(visit.now);
    visit.commit(&state, next, writes).await?;
    Ok(to_overview(&id))
}
