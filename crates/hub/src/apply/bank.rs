//! The bank step: the applicant chooses their bank, authorises lendhub at
//! the bank to read the business account (open-banking account
//! information), and comes back through lendhub's callback, when the
//! account is read. Declining at the bank, or a consent the bank no longer
//! honours, brings them back to the choice with a message, not an error.

use axum::Form;
use axum::extract::rejection::FormRejection;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::journey::{SharedAccount, Step};
use lendhub_store::WriteSet;
use serde::Deserialize;

use super::error::JourneyError;
use super::pages::{self, render_sending_to};
use super::session::{Visit, form_token};
use super::state::JourneyState;
use super::{head, page, step, to_overview};
use crate::counterparties::ReadRefused;

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
    Ok(form(&state, &visit, Vec::new()).await)
}

/// The bank choice; its form ends at a bank's authorisation page, which
/// the page's `form-action` must allow.
async fn form(state: &JourneyState, visit: &Visit, errors: Vec<String>) -> Response {
    let accounts = state.accounts.for_owner(&visit.journey.owner);
    let banks = accounts.banks();
    let origins = accounts.authorisation_origins().await.join(" ");
    let status = pages::form_status(&errors);
    render_sending_to(
        status,
        &pages::Bank {
            head: head(visit),
            action: page(visit.application.id.as_str(), "bank"),
            csrf: form_token(state, &visit.journey),
            banks,
            errors,
        },
        (!origins.is_empty()).then_some(origins.as_str()),
    )
}

/// `POST {apply_url}/{id}/bank`: asks the chosen bank for an
/// account-access consent and sends the applicant there to authorise it.
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
    let Some(name) = bank_name(&state, &visit, &chosen) else {
        let why = "Choose the company's bank.";
        return Ok(form(&state, &visit, vec![why.into()]).await);
    };
    // The callback finds the journey by the state's prefix; the rest is
    // the secret only this authorisation knows.
    let secret = lendhub_system::random_token(24);
    let nonce = lendhub_system::random_token(16);
    let accounts = state.accounts.for_owner(&visit.journey.owner);
    let asked = accounts
        .request_access(&chosen, &format!("{id}.{secret}"), &nonce)
        .await;
    let access = match asked {
        Ok(access) => access,
        Err(e) => {
            tracing::warn!(error = %e, bank = %chosen, "no account-access consent");
            return Ok(form(&state, &visit, vec![unreachable(&name)]).await);
        }
    };
    let next = visit
        .journey
        .bank_authorising(&chosen, &secret, &nonce, visit.now);
    visit.commit(&state, next, WriteSet::default()).await?;
    Ok(Redirect::to(&access.authorise_url).into_response())
}

fn unreachable(bank: &str) -> String {
    format!("We could not reach {bank} just now. Try again in a moment, or choose another bank.")
}

fn bank_name(state: &JourneyState, visit: &Visit, bank: &str) -> Option<String> {
    super::institutions(state, visit)
        .into_iter()
        .find_map(|(id, name)| (id == bank).then_some(name))
}

/// What the bank sent the applicant back with.
#[derive(Deserialize)]
pub struct BankAnswer {
    state: Option<String>,
    code: Option<String>,
    error: Option<String>,
}

/// `GET {apply_url}/{id}/bank/return`: the account the applicant shared is
/// read and the journey moves to the consents; otherwise the bank choice
/// again, saying why.
pub async fn returned(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(answer): Query<BankAnswer>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    if step(&visit) != Step::Bank {
        return Ok(to_overview(&id));
    }
    let secret = answer
        .state
        .as_deref()
        .and_then(|s| s.split_once('.'))
        .map_or("", |(_, secret)| secret);
    let Some(authorisation) = visit.journey.authorising(secret, visit.now).cloned() else {
        let why = "That bank authorisation has ended. Choose your bank to connect again.";
        return Ok(form(&state, &visit, vec![why.into()]).await);
    };
    let name = bank_name(&state, &visit, &authorisation.bank)
        .unwrap_or_else(|| authorisation.bank.clone());
    let read = match (&answer.code, &answer.error) {
        (Some(code), None) => {
            let accounts = state.accounts.for_owner(&visit.journey.owner);
            accounts
                .read_account(&authorisation.bank, code, &authorisation.nonce)
                .await
        }
        _ => Err(ReadRefused::Consent),
    };
    let account = match read {
        Ok(account) => account,
        Err(refused) => {
            let why = match (&refused, &answer.error) {
                (_, Some(_)) => format!(
                    "You did not give access at {name}. To continue, connect the company's account."
                ),
                (ReadRefused::Consent, None) => format!(
                    "{name} no longer lets us read the account: the access was withdrawn or has expired. Connect it again."
                ),
                (ReadRefused::NoUsableAccount, None) => {
                    "Share an open business account in pounds, with its sort code and account number.".into()
                }
                (ReadRefused::Unavailable(e), None) => {
                    tracing::warn!(error = %e, "the shared account could not be read");
                    unreachable(&name)
                }
            };
            let next = visit.journey.bank_not_connected(visit.now);
            visit.commit(&state, next, WriteSet::default()).await?;
            // The form's token stays the session's: the page is the same.
            return Ok(form(&state, &visit, vec![why]).await);
        }
    };
    let shared = SharedAccount {
        bank: authorisation.bank.clone(),
        name: account.name,
        balance_pence: account.balance_pence,
        banking: account.banking,
    };
    let next = visit
        .journey
        .bank_connected(&account.payout, shared, visit.now);
    visit.commit(&state, next, WriteSet::default()).await?;
    Ok(Redirect::to(&page(&id, "consents")).into_response())
}
