use askama::Template;
use axum::Form;
use axum::extract::rejection::FormRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::{HubId, PaymentId};
use lendhub_domain::servicing::collection::{FailureReason, Payment, PaymentStatus};
use lendhub_domain::servicing::schedule::ScheduleStatus;
use serde::Deserialize;

use super::state::PayState;
use crate::flows::pay_at_bank::{self, BankAnswer, Requested, Returned};
use crate::html::{Brand, form_status, render, render_sending_to};

#[derive(Template)]
#[template(path = "pay/pay.html")]
struct PayPage<'a> {
    amount: String,
    reference: Option<&'a str>,
    description: Option<&'a str>,
    expires: String,
    action: &'a str,
    banks: Vec<(String, String)>,
    error: Option<&'a str>,
    /// What authorising also sets up, for a schedule's first collection.
    mandate_terms: Option<String>,
    /// The brand of the partner the loan came through.
    brand: Option<Brand>,
}

#[derive(Template)]
#[template(path = "pay/status.html")]
struct StatusPage<'a> {
    status: &'static str,
    reason: Option<&'static str>,
    title: &'a str,
    message: &'a str,
    amount: String,
    reference: Option<&'a str>,
    next: Option<&'a str>,
    /// The payer's page for the mandate this payment runs under.
    mandate: Option<String>,
    /// The brand of the partner the loan came through.
    brand: Option<Brand>,
}

#[derive(Deserialize, Default)]
pub struct PayForm {
    bank: Option<String>,
}

/// A page that is not a payment's: the link is broken or made up.
fn not_found() -> Response {
    render(
        StatusCode::NOT_FOUND,
        &StatusPage {
            status: "not_found",
            reason: None,
            title: "This payment link does not work",
            message: "It may have been copied incompletely. Ask whoever sent it for a new one.",
            amount: String::new(),
            reference: None,
            next: None,
            mandate: None,
            brand: None,
        },
    )
}

fn unavailable() -> Response {
    render(
        StatusCode::SERVICE_UNAVAILABLE,
        &StatusPage {
            status: "unavailable",
            reason: None,
            title: "Sorry, there is a problem",
            message: "We could not finish that just now. No money has moved: please try again in a moment.",
            amount: String::new(),
            reference: None,
            next: None,
            mandate: None,
            brand: None,
        },
    )
}

/// The payment `link` names, if the link is genuine.
async fn payment(state: &PayState, link: &str) -> Result<Option<Payment>, Response> {
    let Some(id) = state.links.open_pay_link::<PaymentId>(link) else {
        return Ok(None);
    };
    state.servicing.payment_any_owner(&id).await.map_err(|e| {
        tracing::warn!(error = %e, "pay page unavailable");
        unavailable()
    })
}

async fn now_for(state: &PayState, p: &Payment) -> Result<time::OffsetDateTime, Response> {
    state.flows.now_for(&p.owner).await.map_err(|e| {
        tracing::warn!(error = %e, "pay page unavailable");
        unavailable()
    })
}

/// How a payment that can no longer be paid reads to its payer.
/// The brand of the partner `p`'s loan came through; a page without it
/// (the store failing to say) still lets the payer pay.
async fn brand(state: &PayState, p: &Payment) -> Option<Brand> {
    match crate::flows::branding::of_owner(&state.flows, &p.owner).await {
        Ok(b) => b.map(|b| Brand::of(&b)),
        Err(e) => {
            tracing::warn!(error = %e, "pay page shown without the partner's brand");
            None
        }
    }
}

async fn status_page(state: &PayState, p: &Payment, now: time::OffsetDateTime) -> Response {
    let (status, title, message) = match (p.status, p.failure_reason) {
        (PaymentStatus::Pending, _) if !p.is_link() => (
            "collecting",
            "Payment being collected",
            "This payment is collected under the permission you gave: there is nothing for you to do.",
        ),
        (PaymentStatus::Pending, _) if now >= p.expires_at => (
            "expired",
            "This payment link has expired",
            "Ask whoever sent it for a new one. No money has moved.",
        ),
        (PaymentStatus::Pending, _) => ("pending", "Make a repayment", ""),
        (PaymentStatus::Processing, _) => (
            "processing",
            "Payment on its way",
            "Your bank approved the payment; it reaches the lender within moments.",
        ),
        (PaymentStatus::Paid, _) => (
            "paid",
            "Payment received",
            "Thank you: the repayment has been received.",
        ),
        (PaymentStatus::Refunded, _) => (
            "refunded",
            "Payment refunded",
            "This payment was refunded to you.",
        ),
        (PaymentStatus::Failed, Some(reason)) => (
            "failed",
            "The payment did not go through",
            match reason {
                FailureReason::InsufficientFunds => {
                    "Your bank said there was not enough money in the account. No money has moved."
                }
                FailureReason::PayerCancelled => {
                    "The payment was cancelled at your bank. No money has moved."
                }
                FailureReason::MandateRevoked => {
                    "The authority to take payments from this account was withdrawn. No money has moved."
                }
                FailureReason::LinkExpired => {
                    "The payment link expired before it was paid. No money has moved."
                }
                FailureReason::BankUnavailable => {
                    "Your bank could not be reached. No money has moved: ask for a new link and try again."
                }
            },
        ),
        (PaymentStatus::Failed, None) => (
            "failed",
            "The payment did not go through",
            "No money has moved.",
        ),
    };
    // Back to the partner with the payment named, as the hosted journey
    // names the application.
    let next = p.redirect_url.as_deref().and_then(|u| {
        let mut url = url::Url::parse(u).ok()?;
        url.query_pairs_mut()
            .append_pair("payment_id", p.id.as_str());
        Some(url.to_string())
    });
    render(
        StatusCode::OK,
        &StatusPage {
            status,
            reason: p.failure_reason.map(|r| r.as_str()),
            title,
            message,
            amount: lendhub_domain::people::money(p.amount),
            reference: p.reference.as_deref(),
            next: next.as_deref(),
            mandate: p.mandate_id.as_ref().map(|id| mandate_link(state, id)),
            brand: brand(state, p).await,
        },
    )
}

/// The mandate page's address, relative to the pay page's host.
fn mandate_link(state: &PayState, id: &lendhub_domain::ids::MandateId) -> String {
    format!("/pay/mandates/{id}.{}", state.links.pay_token(id))
}

/// For a schedule's instalment paid before a mandate exists: what the
/// payer's authorisation also agrees to.
async fn mandate_terms(state: &PayState, p: &Payment) -> Result<Option<String>, Response> {
    let (Some(instalment), None) = (&p.schedule, &p.mandate_id) else {
        return Ok(None);
    };
    let schedule = state
        .servicing
        .schedule(&p.owner, &instalment.schedule_id)
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "pay page unavailable");
            unavailable()
        })?;
    Ok(schedule
        .filter(|s| s.mandate_id.is_none() && s.status == ScheduleStatus::Active)
        .map(|s| {
            let plan = match s.count {
                Some(1) => "1 payment in all".to_owned(),
                Some(n) => format!("{n} payments in all"),
                None => "until the plan is cancelled".to_owned(),
            };
            format!(
                "Approving this payment also lets the lender collect the later payments of your repayment plan from this account without asking you each time: {} {}, {plan}, from {}. You can withdraw this permission at any time.",
                lendhub_domain::people::money(s.amount),
                s.cadence.as_str(),
                lendhub_domain::people::date(s.start_date)
            )
        }))
}

async fn pay_page(state: &PayState, p: &Payment, link: &str, error: Option<&str>) -> Response {
    let action = format!("/pay/{link}");
    let mandate_terms = match mandate_terms(state, p).await {
        Ok(terms) => terms,
        Err(page) => return page,
    };
    let banks = state.payments.for_owner(&p.owner);
    // The form ends at a bank's authorisation page: CSP's `form-action`
    // must allow it.
    let origins = banks.authorisation_origins().await.join(" ");
    render_sending_to(
        form_status(error.as_slice()),
        &PayPage {
            amount: lendhub_domain::people::money(p.amount),
            reference: p.reference.as_deref(),
            description: p.description.as_deref(),
            expires: lendhub_domain::people::moment(p.expires_at),
            action: &action,
            banks: banks.banks(),
            error,
            mandate_terms,
            brand: brand(state, p).await,
        },
        (!origins.is_empty()).then_some(origins.as_str()),
    )
}

/// The payment `link` names and now on its owner's clock, or the page that
/// says why not.
async fn load(state: &PayState, link: &str) -> Result<(Payment, time::OffsetDateTime), Response> {
    let p = payment(state, link).await?.ok_or_else(not_found)?;
    let now = now_for(state, &p).await?;
    Ok((p, now))
}

/// `GET {pay_url}/{link}`: the payment and the banks, or how it stands.
pub async fn show(State(state): State<PayState>, Path(link): Path<String>) -> Response {
    let (p, now) = match load(&state, &link).await {
        Ok(loaded) => loaded,
        Err(page) => return page,
    };
    if p.open(now).is_ok() && p.is_link() {
        pay_page(&state, &p, &link, None).await
    } else {
        status_page(&state, &p, now).await
    }
}

/// `POST {pay_url}/{link}`: the payer chose their bank; they are sent
/// there to authorise the payment.
pub async fn pay(
    State(state): State<PayState>,
    Path(link): Path<String>,
    form: Result<Form<PayForm>, FormRejection>,
) -> Response {
    let (p, now) = match load(&state, &link).await {
        Ok(loaded) => loaded,
        Err(page) => return page,
    };
    if p.open(now).is_err() || !p.is_link() {
        return status_page(&state, &p, now).await;
    }
    let Form(form) = form.unwrap_or_default();
    let bank = form.bank.unwrap_or_default();
    let banks = state.payments.for_owner(&p.owner).banks();
    let Some((_, name)) = banks.iter().find(|(id, _)| *id == bank) else {
        return pay_page(&state, &p, &link, Some("Choose your bank.")).await;
    };
    match pay_at_bank::request(&state.flows, &p, &bank, now).await {
        Ok(Requested::AtBank(url)) => Redirect::to(&url).into_response(),
        Ok(Requested::Unreachable) => {
            let why = format!(
                "We could not reach {name} just now. No money has moved: try again in a moment, or choose another bank."
            );
            pay_page(&state, &p, &link, Some(&why)).await
        }
        Ok(Requested::Moved) => current(&state, &link, now).await,
        Err(e) => {
            tracing::warn!(payment = %p.id, error = %e, "could not record a payment consent");
            unavailable()
        }
    }
}

/// How the payment `link` names stands now.
async fn current(state: &PayState, link: &str, now: time::OffsetDateTime) -> Response {
    match payment(state, link).await {
        Ok(Some(current)) => status_page(state, &current, now).await,
        Ok(None) => not_found(),
        Err(r) => r,
    }
}

/// What the payer's bank sent them back with, through lendhub's callback.
#[derive(Deserialize)]
pub struct Returning {
    state: Option<String>,
    code: Option<String>,
    error: Option<String>,
}

/// `GET {pay_url}/return`: the payer is back from their bank. The state is
/// the credential: it names the payment and holds the secret only this
/// authorisation knows.
pub async fn returned(State(state): State<PayState>, Query(back): Query<Returning>) -> Response {
    let handed = back.state.unwrap_or_default();
    let Some(id) = pay_at_bank::payment_named(&handed) else {
        return not_found();
    };
    let p = match state.servicing.payment_any_owner(&id).await {
        Ok(Some(p)) => p,
        Ok(None) => return not_found(),
        Err(e) => {
            tracing::warn!(error = %e, "pay page unavailable");
            return unavailable();
        }
    };
    let now = match now_for(&state, &p).await {
        Ok(now) => now,
        Err(page) => return page,
    };
    let answer = BankAnswer {
        code: back.code,
        error: back.error,
    };
    let link = format!("{id}.{}", state.links.pay_token(&id));
    match pay_at_bank::returned(&state.flows, &p, &handed, &answer, now).await {
        Ok(Returned::Now(current)) => status_page(&state, &current, now).await,
        Ok(Returned::Unknown) => not_found(),
        Ok(Returned::Ended) => {
            let why = "That authorisation at your bank has ended. Choose your bank to pay again.";
            pay_page(&state, &p, &link, Some(why)).await
        }
        Err(e) => {
            tracing::warn!(payment = %p.id, error = %e, "could not record the bank's answer");
            unavailable()
        }
    }
}
