//! A payment link paid at the payer's bank over open-banking payment
//! initiation: the payer picks their bank, lendhub asks it for a payment
//! consent and sends them there; their bank sends them back to lendhub's
//! callback, lendhub submits the payment under the consent they
//! authorised, and the payment is processing until the bank says it
//! settled (`payments::ask_bank` asks).

use lendhub_domain::ids::HubId;
use lendhub_domain::open_banking::pis::Progress;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::bank_payment::PayerAuthorisation;
use lendhub_domain::servicing::collection::{FailureReason, Payment};
use lendhub_store::WriteSet;
use time::OffsetDateTime;

use super::FlowError;
use super::mandate_at_bank;
use super::payments::{commit, settle};
use crate::counterparties::{BankPayments, PaymentOrder, SubmitRefused};
use crate::flows::Context;

/// Where the payer goes next after choosing a bank.
#[derive(Debug)]
pub enum Requested {
    /// To their bank's authorisation page.
    AtBank(String),
    /// The bank could not be asked: nothing changed, they may try again.
    Unreachable,
    /// The payment is no longer open (paid in another tab, lapsed).
    Moved,
}

/// What the payer's bank sent them back with.
#[derive(Debug, Default)]
pub struct BankAnswer {
    pub code: Option<String>,
    pub error: Option<String>,
}

/// How the payer's return left the payment.
#[derive(Debug)]
pub enum Returned {
    /// As it now stands: processing, paid or failed, or already moved by
    /// an earlier return.
    Now(Box<Payment>),
    /// The authorisation the state named has lapsed, or the bank no
    /// longer honours it: the payer chooses their bank again.
    Ended,
    /// The state is not one this payment issued: nothing is shown of it.
    Unknown,
}

/// The order a payment makes at the payer's bank: its id is the
/// instruction's, its reference the partner's or else the id.
fn order(payment: &Payment) -> PaymentOrder<'_> {
    PaymentOrder {
        id: payment.id.as_str(),
        amount: payment.amount,
        reference: payment.reference.as_deref().unwrap_or(payment.id.as_str()),
        due_on: None,
    }
}

fn bank_of<'a>(cx: &'a Context, payment: &Payment) -> &'a dyn BankPayments {
    cx.payments.for_owner(&payment.owner).as_ref()
}

/// The payer chose `bank`: a payment consent there, and the authorisation
/// recorded on the payment so the callback can find it. `state` is
/// `{payment id}.{secret}`; only the secret's hash is kept.
pub async fn request(
    cx: &Context,
    payment: &Payment,
    bank: &str,
    now: OffsetDateTime,
) -> Result<Requested, FlowError> {
    if payment.open(now).is_err() || !payment.is_link() {
        return Ok(Requested::Moved);
    }
    let state = format!("{}.{}", payment.id, lendhub_system::random_token(24));
    let nonce = lendhub_system::random_token(16);
    // A schedule's first instalment sets up its mandate: the payer
    // authorises a VRP consent, and the instalment is its first payment.
    let wanting = mandate_at_bank::schedule_wanting_mandate(cx, payment).await?;
    let asked = match &wanting {
        Some(schedule) => {
            let terms = mandate_at_bank::terms(schedule);
            let banks = cx.mandates.for_owner(&payment.owner);
            banks.request_mandate(bank, &terms, (&state, &nonce)).await
        }
        None => {
            bank_of(cx, payment)
                .request_payment(bank, &order(payment), (&state, &nonce))
                .await
        }
    };
    let access = match asked {
        Ok(access) => access,
        Err(e) => {
            tracing::warn!(payment = %payment.id, bank, error = %e, "no payment consent");
            return Ok(Requested::Unreachable);
        }
    };
    let mut authorisation = PayerAuthorisation::new(bank, &access.consent_id, &state, &nonce, now);
    if wanting.is_some() {
        authorisation = authorisation.for_mandate();
    }
    let Ok(next) = payment.authorising(authorisation, now) else {
        return Ok(Requested::Moved);
    };
    let mut writes = WriteSet::default();
    writes.push(lendhub_store::LendingWrite::UpdatePayment(next));
    match cx.commit(writes).await {
        Ok(()) => Ok(Requested::AtBank(access.authorise_url)),
        Err(lendhub_store::CommitError::Conflict) => Ok(Requested::Moved),
        Err(e) => Err(e.into()),
    }
}

/// The payment a callback's `state` names, if it names one.
pub fn payment_named(state: &str) -> Option<lendhub_domain::ids::PaymentId> {
    let (id, _) = state.split_once('.')?;
    lendhub_domain::ids::PaymentId::parse(id)
}

/// The payer came back from their bank with `answer` to the authorisation
/// `state` names: the payment submitted under the consent they authorised
/// (`payment.processing`, or `payment.paid` at once if the bank settled
/// it), or failed (`payment.failed`: they declined, the bank rejected it,
/// or the bank could not be reached to submit it). A second return for the
/// same authorisation changes nothing.
pub async fn returned(
    cx: &Context,
    payment: &Payment,
    state: &str,
    answer: &BankAnswer,
    now: OffsetDateTime,
) -> Result<Returned, FlowError> {
    // Only the holder of the state sees anything of the payment.
    let Some(authorisation) = payment.authorised_by(state).cloned() else {
        return Ok(Returned::Unknown);
    };
    if payment.open(now).is_err() {
        return Ok(Returned::Now(Box::new(payment.clone())));
    }
    if !authorisation.is_live(now) {
        return Ok(Returned::Ended);
    }
    let bank = authorisation.bank.as_str();
    let code = match (&answer.code, &answer.error) {
        (Some(code), None) => code,
        // Declined at the bank (`access_denied`) or any other refusal.
        _ => return fail(cx, payment, FailureReason::PayerCancelled, bank, now).await,
    };
    if authorisation.for_mandate {
        return mandate_authorised(cx, payment, &authorisation, code, now).await;
    }
    let submitted = bank_of(cx, payment)
        .submit_payment(
            bank,
            &order(payment),
            &authorisation.consent_id,
            (code, &authorisation.nonce),
        )
        .await;
    match submitted {
        Ok(accepted) => {
            let Ok(processing) = payment.submitted(&accepted.domestic_payment_id, now) else {
                return current(cx, payment).await;
            };
            let processing = processing.paid_from(accepted.payer_account.clone());
            match accepted.progress {
                Progress::Failed(reason) => fail(cx, payment, reason, bank, now).await,
                progress => {
                    let Some(processing) = commit(
                        cx,
                        processing,
                        WriteSet::default(),
                        EventType::PaymentProcessing,
                        now,
                    )
                    .await?
                    else {
                        return current(cx, payment).await;
                    };
                    if progress == Progress::Settled {
                        settle(cx, &processing, now).await?;
                    }
                    current(cx, payment).await
                }
            }
        }
        // The code was spent or the consent no longer holds: an earlier
        // return may have submitted it meanwhile.
        Err(SubmitRefused::Consent) => match current(cx, payment).await? {
            Returned::Now(p) if p.version == payment.version => Ok(Returned::Ended),
            moved => Ok(moved),
        },
        Err(SubmitRefused::Unavailable(e)) => {
            tracing::warn!(payment = %payment.id, bank, error = %e, "an authorised payment was not submitted");
            fail(cx, payment, FailureReason::BankUnavailable, bank, now).await
        }
    }
}

/// The payer authorised the schedule's mandate: established, and the
/// instalment taken under it at once.
async fn mandate_authorised(
    cx: &Context,
    payment: &Payment,
    authorisation: &PayerAuthorisation,
    code: &str,
    now: OffsetDateTime,
) -> Result<Returned, FlowError> {
    let bank = authorisation.bank.as_str();
    let banks = cx.mandates.for_owner(&payment.owner);
    let authorised = banks
        .authorise_mandate(
            bank,
            &authorisation.consent_id,
            (code, &authorisation.nonce),
        )
        .await;
    let tokens = match authorised {
        Ok(tokens) => tokens,
        Err(SubmitRefused::Consent) => {
            return match current(cx, payment).await? {
                Returned::Now(p) if p.version == payment.version => Ok(Returned::Ended),
                moved => Ok(moved),
            };
        }
        Err(SubmitRefused::Unavailable(e)) => {
            tracing::warn!(payment = %payment.id, bank, error = %e, "an authorised mandate was not confirmed");
            return fail(cx, payment, FailureReason::BankUnavailable, bank, now).await;
        }
    };
    // Still wanted: a mandate set up meanwhile (another tab) is kept, and
    // this consent ended at the bank.
    match mandate_at_bank::schedule_wanting_mandate(cx, payment).await? {
        Some(schedule) => {
            mandate_at_bank::establish(cx, payment, &schedule, authorisation, &tokens, now).await?;
        }
        None => {
            let banks = cx.mandates.for_owner(&payment.owner);
            if let Err(e) = banks.end_mandate(bank, &authorisation.consent_id).await {
                tracing::warn!(payment = %payment.id, error = %e, "an unwanted VRP consent was not ended");
            }
        }
    }
    current(cx, payment).await
}

async fn fail(
    cx: &Context,
    payment: &Payment,
    reason: FailureReason,
    bank: &str,
    now: OffsetDateTime,
) -> Result<Returned, FlowError> {
    if let Ok(failed) = payment.failed(reason, Some(bank)) {
        commit(
            cx,
            failed,
            WriteSet::default(),
            EventType::PaymentFailed,
            now,
        )
        .await?;
    }
    current(cx, payment).await
}

/// The payment as stored now.
async fn current(cx: &Context, payment: &Payment) -> Result<Returned, FlowError> {
    cx.servicing
        .payment_any_owner(&payment.id)
        .await?
        .map(|p| Returned::Now(Box::new(p)))
        .ok_or(FlowError::NotFound("payment"))
}
