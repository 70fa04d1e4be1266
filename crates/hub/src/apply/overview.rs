use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::application::{Decision, Status, cooling_off_until};
use lendhub_domain::lending::journey::Step;
use lendhub_domain::people;

use super::error::JourneyError;
use super::pages::{self, Term, reason_text, render, render_sending_to};
use super::session::{Visit, form_token};
use super::state::JourneyState;
use super::{head, page, step};

/// `GET {apply_url}/{id}`: the page of the step the applicant is at, or,
/// once submitted, the decision: the offer to sign, a referral, a decline.
pub async fn show(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, JourneyError> {
    let visit = Visit::load(&state, &headers, &id).await?;
    let to = |p: &str| Ok(Redirect::to(&page(&id, p)).into_response());
    match step(&visit) {
        Step::SignIn => Err(JourneyError::NotYours { application_id: id }),
        Step::Company => to("company"),
        Step::Bank => to("bank"),
        Step::Consents => to("consents"),
        Step::Outcome => outcome(&state, &visit, "", Vec::new()).await,
    }
}

/// The decision's page; `signed_by` and `errors` refill the offer's form.
pub async fn outcome(
    state: &JourneyState,
    visit: &Visit,
    signed_by: &str,
    errors: Vec<String>,
) -> Result<Response, JourneyError> {
    let a = &visit.application;
    let id = a.id.as_str();
    let decision = match &a.decision_id {
        Some(d) => state.lending.hub_decision(&a.owner, d).await?,
        None => None,
    };
    let finish = page(id, "finish");
    let copy = Some(page(id, "agreement.pdf"));
    let told = |outcome, title, message, reasons, next, elsewhere, copy| {
        render(
            StatusCode::OK,
            &pages::Outcome {
                head: head(visit),
                outcome,
                title,
                message,
                reasons,
                next,
                elsewhere,
                finish: finish.clone(),
                copy,
            },
        )
    };
    let email = visit.journey.applicant.as_ref().map(|p| p.email.as_str());
    // The reasons, then what weighed most in the model's score, in the
    // words the dashboard and MCP use.
    let reasons = |d: &Decision| {
        let said = d
            .verdict
            .reasons
            .iter()
            .map(|r| reason_text(r.code).to_owned());
        let weighed = crate::views::explanation::raising(d)
            .into_iter()
            .take(3)
            .map(|f| f.explanation);
        said.chain(weighed).collect::<Vec<_>>()
    };
    Ok(match (a.status, &decision) {
        (Status::Approved, Some(d))
            if d.expires_at.is_some_and(|t| t <= visit.now) && !d.locked() =>
        {
            told(
                "offer_expired",
                "This offer has expired",
                "The offer was open for a limited time. Go back to the service you applied through to ask for a fresh decision.",
                Vec::new(),
                Vec::new(),
                &[],
                None,
            )
        }
        (Status::Approved, Some(d)) if !d.locked() => {
            let Some(offer) = &d.verdict.offer else {
                return Err(JourneyError::Internal(format!(
                    "approved decision {} has no offer",
                    d.id
                )));
            };
            let status = pages::form_status(&errors);
            let draft = crate::flows::agreements::draft(&state.flows, a)
                .await
                .map_err(|e| JourneyError::from_flow(id, e))?
                .unwrap_or_default();
            let (_, blocks) = super::documents::titled(&draft);
            // The stored offer, verbatim: nothing is recomputed here.
            let terms = vec![
                term("Amount", people::money(offer.amount_pence), "offer-amount"),
                term(
                    "Term",
                    format!("{} months", offer.term_months),
                    "offer-term",
                ),
                term(
                    "Monthly repayment",
                    people::money(offer.monthly_repayment_pence),
                    "offer-monthly",
                ),
                term(
                    "Total repayable",
                    people::money(offer.total_repayable_pence),
                    "offer-total",
                ),
                term("Representative APR", format!("{}%", offer.apr), "offer-apr"),
            ];
            let partner = a
                .redirect_uri
                .as_deref()
                .and_then(|u| url::Url::parse(u).ok())
                .map(|u| u.origin().ascii_serialization());
            render_sending_to(
                status,
                &pages::Offer {
                    head: head(visit),
                    action: page(id, "accept"),
                    csrf: form_token(state, &visit.journey),
                    terms,
                    expires: d.expires_at.map_or_else(String::new, people::moment),
                    signed_by,
                    funding_failure: a.funding_failure.as_deref(),
                    finish: finish.clone(),
                    errors,
                    blocks,
                    heading_level: 3,
                    agreement: page(id, "agreement"),
                },
                partner.as_deref(),
            )
        }
        (Status::Approved, Some(_)) => told(
            "signed",
            "You have signed",
            "Thank you. The loan is being paid into the connected account; it usually arrives within minutes.",
            Vec::new(),
            Vec::new(),
            &[],
            copy.clone(),
        ),
        (Status::Funded, _) => told(
            "funded",
            "Your loan has been paid",
            "The money is in the connected account. Repayments are collected from it as the loan agreement sets out; the service you applied through shows the schedule and lets you pay early.",
            Vec::new(),
            Vec::new(),
            &[],
            copy.clone(),
        ),
        (Status::InReview | Status::Submitted, d) => told(
            "referred",
            "An underwriter is looking at your application",
            "We need a person to review a few details.",
            d.as_ref().map(reasons).unwrap_or_default(),
            referred_next(email),
            &[],
            None,
        ),
        (Status::Declined, d) => told(
            "declined",
            "We cannot offer a loan this time",
            "We are sorry. These are the main reasons:",
            d.as_ref().map(reasons).unwrap_or_default(),
            vec![format!(
                "The company can apply again from {}. Applying sooner is refused, whoever it is made through.",
                people::date(people::first_whole_day(cooling_off_until(a.updated_at)))
            )],
            &pages::ELSEWHERE,
            None,
        ),
        (status, _) => {
            return Err(JourneyError::Internal(format!(
                "application {id} is {} with no page to show",
                status.as_str()
            )));
        }
    })
}

/// How long a review takes and how the applicant hears of it.
fn referred_next(email: Option<&str>) -> Vec<String> {
    let told = match email {
        Some(e) => format!(
            "We will e-mail you at {e} as soon as they have decided, with a link back to this page. If they approve, you accept the offer here."
        ),
        None => "The service you applied through will tell you the outcome. If they approve, you accept the offer here.".to_owned(),
    };
    vec![
        "An underwriter usually decides within one working day.".to_owned(),
        told,
    ]
}

fn term(label: &'static str, value: String, id: &'static str) -> Term {
    Term { label, value, id }
}
