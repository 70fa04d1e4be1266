use axum::Form;
use axum::extract::rejection::FormRejection;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::journey::{ROLES, Step};
use lendhub_domain::lending::kyc::Request;
use serde::Deserialize;

use super::error::JourneyError;
use super::pages::{self, render};
use super::session::{Visit, form_token};
use super::state::JourneyState;
use super::{head, page, step, to_overview};
use crate::flows::FlowError;
use crate::flows::check_person::check_person;

/// The roles as the page offers them.
const ROLE_LABELS: [(&str, &str); 3] = [
    ("director", "Director"),
    ("company_secretary", "Company secretary"),
    ("other", "Something else"),
];

#[derive(Deserialize, Default)]
pub struct CompanyForm {
    #[serde(default)]
    csrf: String,
    role: Option<String>,
    #[serde(default)]
    date_of_birth: String,
    #[serde(default)]
    postcode: String,
}

/// `GET {apply_url}/{id}/company`.
pub async fn show(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    if step(&visit) != Step::Company {
        return Ok(to_overview(&id));
    }
    Ok(form(&state, &visit, &CompanyForm::default(), Vec::new()))
}

fn form(state: &JourneyState, visit: &Visit, input: &CompanyForm, errors: Vec<String>) -> Response {
    let (name, email) = visit.journey.applicant.as_ref().map_or_else(
        || (String::new(), ""),
        |a| {
            (
                format!("{} {}", a.given_name, a.family_name),
                a.email.as_str(),
            )
        },
    );
    let status = pages::form_status(&errors);
    render(
        status,
        &pages::Company {
            head: head(&visit.application),
            action: page(visit.application.id.as_str(), "company"),
            csrf: form_token(state, &visit.journey),
            full_name: name,
            email,
            roles: ROLE_LABELS,
            role: input.role.as_deref().unwrap_or(""),
            date_of_birth: &input.date_of_birth,
            postcode: &input.postcode,
            errors,
        },
    )
}

/// `POST {apply_url}/{id}/company`: the role, and the director check of the
/// signed-in person against the company (`POST /identity/checks`'s code:
/// `identity.verified` or `identity.review_required`).
pub async fn submit(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    input: Result<Form<CompanyForm>, FormRejection>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    let Form(input) = input.unwrap_or_default();
    visit.check_form(&state, &input.csrf)?;
    if step(&visit) != Step::Company {
        return Ok(to_overview(&id));
    }
    let role = input.role.as_deref().unwrap_or("");
    if !ROLES.contains(&role) {
        return Ok(form(
            &state,
            &visit,
            &input,
            vec!["Choose your role in the company.".into()],
        ));
    }
    if role == "other" {
        let why = "Only a director or the company secretary can apply for the company's loan.";
        return Ok(form(&state, &visit, &input, vec![why.into()]));
    }
    let Some(applicant) = &visit.journey.applicant else {
        return Err(JourneyError::NotYours { application_id: id });
    };
    let request = Request {
        first_name: Some(applicant.given_name.clone()),
        last_name: Some(applicant.family_name.clone()),
        date_of_birth: Some(input.date_of_birth.trim().to_owned()).filter(|d| !d.is_empty()),
        postcode: Some(input.postcode.trim().to_owned()).filter(|p| !p.is_empty()),
        company_number: Some(visit.application.company_number.clone()),
        application_id: Some(id.clone()),
    };
    let owner = visit.journey.owner.clone();
    let (verification_id, writes) =
        match check_person(&state.flows, &owner, &request, visit.now).await {
            Ok((verification_id, _, writes)) => (verification_id, writes),
            Err(FlowError::Validation(issues)) => {
                let errors = issues
                    .iter()
                    .map(|i| field_message(&i.field, i.reason))
                    .collect();
                return Ok(form(&state, &visit, &input, errors));
            }
            Err(e) => return Err(JourneyError::from_flow(&id, e)),
        };
    let next = visit
        .journey
        .company_confirmed(role, verification_id, visit.now);
    visit.commit(&state, next, writes).await?;
    Ok(Redirect::to(&page(&id, "bank")).into_response())
}

/// What a failed rule of the identity check means on this page.
fn field_message(field: &str, reason: &str) -> String {
    match (field, reason) {
        ("person.date_of_birth", "required") => "Enter your date of birth.".into(),
        ("person.date_of_birth", "too_young") => {
            "You must be at least 16 to act for the company.".into()
        }
        ("person.date_of_birth", _) => "Enter your date of birth as a real date.".into(),
        ("person.postcode", _) => "Enter a UK postcode, or leave it empty.".into(),
        ("person.first_name" | "person.last_name", _) => {
            "Your account has no full name; add it at the identity provider and try again.".into()
        }
        (field, reason) => format!("{field}: {reason}"),
    }
}
