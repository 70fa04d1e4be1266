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
    dob_day: String,
    #[serde(default)]
    dob_month: String,
    #[serde(default)]
    dob_year: String,
    #[serde(default)]
    postcode: String,
}

impl CompanyForm {
    /// The three boxes as the identity check reads a date (`YYYY-MM-DD`):
    /// none if all are empty, and anything not three numbers passed on as
    /// typed so that the check refuses it as not a real date.
    fn date_of_birth(&self) -> Option<String> {
        let parts = [&self.dob_day, &self.dob_month, &self.dob_year].map(|p| p.trim());
        if parts.iter().all(|p| p.is_empty()) {
            return None;
        }
        let number = |p: &str| {
            (!p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse::<u16>().ok())
                .flatten()
        };
        Some(match parts.map(number) {
            [Some(d), Some(m), Some(y)] if parts[2].len() == 4 => format!("{y:04}-{m:02}-{d:02}"),
            _ => parts.join("/"),
        })
    }
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
            head: head(visit),
            action: page(visit.application.id.as_str(), "company"),
            csrf: form_token(state, &visit.journey),
            full_name: name,
            email,
            roles: ROLE_LABELS,
            role: input.role.as_deref().unwrap_or(""),
            dob: (&input.dob_day, &input.dob_month, &input.dob_year),
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
        date_of_birth: input.date_of_birth(),
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

#[cfg(test)]
mod tests {
    use super::CompanyForm;

    fn typed(day: &str, month: &str, year: &str) -> Option<String> {
        CompanyForm {
            dob_day: day.into(),
            dob_month: month.into(),
            dob_year: year.into(),
            ..CompanyForm::default()
        }
        .date_of_birth()
    }

    #[test]
    fn three_boxes_make_the_checks_date() {
        assert_eq!(typed("12", "4", "1985").as_deref(), Some("1985-04-12"));
        assert_eq!(typed(" 3 ", "03", "1985").as_deref(), Some("1985-03-03"));
        assert_eq!(typed("", "", ""), None);
        // Not three numbers, or a two-digit year: passed on as typed, for
        // the check to refuse as not a real date.
        assert_eq!(
            typed("12", "April", "1985").as_deref(),
            Some("12/April/1985")
        );
        assert_eq!(typed("12", "4", "85").as_deref(), Some("12/4/85"));
        assert_eq!(typed("12", "", "1985").as_deref(), Some("12//1985"));
    }
}
