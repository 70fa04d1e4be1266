use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::application::{Decision, Status};
use lendhub_domain::lending::journey::Step;

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
    let told = |outcome, title, message, reasons| {
        render(
            StatusCode::OK,
            &pages::Outcome {
                head: head(a),
                outcome,
                title,
                message,
                reasons,
                finish: finish.clone(),
            },
        )
    };
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
            // The stored offer, verbatim: nothing is recomputed here.
            let terms = vec![
                term("Amount", offer.amount_pence.to_string(), "offer-amount"),
                term(
                    "Term",
                    format!("{} months", offer.term_months),
                    "offer-term",
                ),
                term(
                    "Monthly repayment",
                    offer.monthly_repayment_pence.to_string(),
                    "offer-monthly",
                ),
                term(
                    "Total repayable",
                    offer.total_repayable_pence.to_string(),
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
                    head: head(a),
                    action: page(id, "accept"),
                    csrf: form_token(state, &visit.journey),
                    terms,
                    expires: d
                        .expires_at
                        .map_or_else(String::new, |t| t.date().to_string()),
                    signed_by,
                    funding_failure: a.funding_failure.as_deref(),
                    finish: finish.clone(),
                    errors,
                },
                partner.as_deref(),
            )
        }
        (Status::Approved, Some(_)) => told(
            "signed",
            "You have signed",
            "Thank you. The loan is being paid into the connected account; it usually arrives within minutes.",
            Vec::new(),
        ),
        (Status::Funded, _) => told(
            "funded",
            "Your loan has been paid",
            "The money is in the connected account. Your repayment schedule follows by e-mail.",
            Vec::new(),
        ),
        (Status::InReview | Status::Submitted, d) => told(
            "referred",
            "An underwriter is looking at your application",
            "We need a person to review a few details. We will let you know the outcome; you can then come back here to accept an offer.",
            d.as_ref().map(reasons).unwrap_or_default(),
        ),
        (Status::Declined, d) => told(
            "declined",
            "We cannot offer a loan this time",
            "We are sorry. These are the main reasons:",
            d.as_ref().map(reasons).unwrap_or_default(),
        ),
        (status, _) => {
            return Err(JourneyError::Internal(format!(
                "application {id} is {} with no page to show",
                status.as_str()
            )));
        }
    })
}

fn term(label: &'static str, value: String, id: &'static str) -> Term {
    Term { label, value, id }
}
