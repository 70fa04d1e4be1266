use axum::Form;
use axum::extract::rejection::FormRejection;
use axum::extract::{Path, State};
use axum::http::request::Parts;
use axum::response::Response;
use lendhub_domain::lending::application::{MAX_NAME, Status};
use serde::Deserialize;

use super::error::JourneyError;
use super::overview::outcome;
use super::session::Visit;
use super::state::JourneyState;
use super::to_overview;
use crate::flows::sign::{Signer, sign};

#[derive(Deserialize, Default)]
pub struct AcceptForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    signed_by: String,
    accept_terms: Option<String>,
}

/// `POST {apply_url}/{id}/accept`: the applicant accepts the offer and signs
/// by typing their name (`offer.accepted`, `agreement.signed`; the decision
/// locks and the disbursement falls due), then goes back to the partner.
pub async fn accept(
    State(state): State<JourneyState>,
    request: Parts,
    Path(id): Path<String>,
    input: Result<Form<AcceptForm>, FormRejection>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &request.headers, &id).await?;
    let Form(input) = input.unwrap_or_default();
    visit.check_form(&state, &input.csrf)?;
    if visit.application.status != Status::Approved {
        return Ok(to_overview(&id));
    }
    let signed_by = input.signed_by.trim();
    let mut errors = Vec::new();
    if signed_by.is_empty() {
        errors.push("Type your full name to sign.".to_owned());
    } else if signed_by.chars().count() > MAX_NAME {
        errors.push(format!("Your name can be at most {MAX_NAME} characters."));
    }
    if input.accept_terms.as_deref() != Some("yes") {
        errors.push("Confirm that you accept the offer and the agreement.".to_owned());
    }
    if !errors.is_empty() {
        return outcome(&state, &visit, signed_by, errors).await;
    }
    let a = &visit.application;
    let decision = match &a.decision_id {
        Some(d) => state.lending.hub_decision(&a.owner, d).await?,
        None => None,
    }
    .ok_or_else(|| JourneyError::Internal(format!("approved application {id} has no decision")))?;
    let signer = Signer {
        name: signed_by,
        ip_address: lendhub_http::client_ip::client_ip(&request, &state.trusted_proxies),
        journey: Some(&visit.journey),
        partner: visit.brand.as_ref().and_then(|b| b.name.as_deref()),
    };
    let (_, writes) = sign(&state.flows, a, &decision, signer, visit.now)
        .map_err(|e| JourneyError::from_flow(&id, e))?;
    let next = visit.journey.touched(visit.now);
    visit.commit(&state, next, writes).await?;
    // The signed page, with their copy, before going back to the partner.
    Ok(to_overview(&id))
}
