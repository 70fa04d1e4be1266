//! Finding an application, a decision or a payment for its owner, what the engine
//! reads afresh about a company, and why a change to a decision is refused.

use lendhub_domain::credit_model::registry::{InForce, ShadowScore};
use lendhub_domain::credit_model::{Scorecard, Scored};
use lendhub_domain::ids::{ApplicationId, DecisionId, HubId, PaymentId};
use lendhub_domain::lending::application::{Application, CannotChange, Decision, Status};
use lendhub_domain::lending::register::RegisteredEntity;
use lendhub_domain::lending::underwriting::CreditFile;
use lendhub_domain::servicing::collection::Payment;
use lendhub_domain::tenant::Tenant;
use lendhub_store::LendingWrite;
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::error::FlowError;

/// The caller's application `raw_id`, or 404.
pub(crate) async fn find(
    cx: &Context,
    owner: &Tenant,
    raw_id: &str,
) -> Result<Application, FlowError> {
    let id = ApplicationId::parse(raw_id).ok_or(FlowError::NotFound("application"))?;
    find_by_id(cx, owner, &id).await
}

/// The caller's application `id`, or 404.
pub(crate) async fn find_by_id(
    cx: &Context,
    owner: &Tenant,
    id: &ApplicationId,
) -> Result<Application, FlowError> {
    cx.lending
        .hub_application(owner, id)
        .await?
        .ok_or(FlowError::NotFound("application"))
}

/// The caller's decision `id` and the application it decides.
pub async fn find_decision(
    cx: &Context,
    owner: &Tenant,
    id: &str,
) -> Result<(Application, Decision), FlowError> {
    let missing = FlowError::NotFound("decision");
    let Some(id) = DecisionId::parse(id) else {
        return Err(missing);
    };
    let decision = cx.lending.hub_decision(owner, &id).await?.ok_or(missing)?;
    let application = find_by_id(cx, owner, &decision.application_id).await?;
    Ok((application, decision))
}

/// The caller's payment `raw_id`, or 404.
pub async fn find_payment(
    cx: &Context,
    owner: &Tenant,
    raw_id: &str,
) -> Result<Payment, FlowError> {
    let missing = FlowError::NotFound("payment");
    let Some(id) = PaymentId::parse(raw_id) else {
        return Err(missing);
    };
    cx.servicing.payment(owner, &id).await?.ok_or(missing)
}

/// What the engine reads afresh about the application's company: its
/// register entry (it must still be there) and its credit file.
pub async fn company_and_credit(
    cx: &Context,
    application: &Application,
) -> Result<(RegisteredEntity, CreditFile), FlowError> {
    let unavailable = |e: &dyn std::fmt::Display| FlowError::Unavailable(e.to_string());
    let company = cx
        .register
        .for_owner(&application.owner)
        .lookup(&application.company_number)
        .await
        .map_err(|e| unavailable(&e))?
        .ok_or(FlowError::Conflict(
            "the company is no longer on the register",
        ))?;
    let credit = cx
        .bureau
        .for_owner(&application.owner)
        .credit_file(&application.company_number)
        .await
        .map_err(|e| unavailable(&e))?;
    Ok((company, credit))
}

/// The credit models in force: the champion decides, a challenger (if the
/// operator named one) scores in shadow.
pub async fn models(cx: &Context) -> Result<InForce, FlowError> {
    cx.lending
        .model_roles()
        .await?
        .in_force()
        .ok_or_else(|| FlowError::Internal("no credit model is bundled".to_owned()))
}

/// The challenger's shadow score of `decision`, which the champion made,
/// to commit with it: never shown to a partner (issue #48 item 3).
pub fn shadow(
    decision: &Decision,
    challenger: Option<&Scorecard>,
    now: OffsetDateTime,
) -> Option<LendingWrite> {
    let (challenger, made) = (challenger?, decision.verdict.scored.as_ref()?);
    // The very vector the champion scored: the two differ only in model.
    let theirs = Scored::by(challenger, made.features.clone());
    Some(LendingWrite::InsertShadowScore(ShadowScore {
        decision_id: decision.id.clone(),
        owner: decision.owner.clone(),
        champion: made.model.clone(),
        champion_probability: made.score.probability,
        champion_outcome: decision.verdict.outcome,
        challenger: theirs.model.clone(),
        probability: theirs.score.probability,
        outcome: theirs.cutoffs.outcome(theirs.score.probability),
        scored_at: now,
    }))
}

/// The answer to a refused change: 423 for a locked decision, 409 for the
/// rest, each saying what to do.
pub fn refused(e: CannotChange) -> FlowError {
    match e {
        CannotChange::Locked => FlowError::DecisionLocked,
        CannotChange::OfferExpired => {
            FlowError::Conflict("the offer has expired; refresh the decision for a new one")
        }
        CannotChange::NotLocked => FlowError::Conflict("the decision is not locked"),
        CannotChange::Disbursing => FlowError::Conflict(
            "the loan is being paid out: the money is committed to the borrower's account",
        ),
        CannotChange::PayeeInvalid => FlowError::Conflict(
            "the account the loan would be paid to fails the sort code and account number check; connect another account",
        ),
        CannotChange::Closed(status) => FlowError::Conflict(match status {
            Status::Declined => {
                "the decision declined the application, which is final; the company may apply again after the cooling-off period"
            }
            Status::Funded => "the loan is funded",
            Status::Withdrawn => "the application was withdrawn",
            Status::Expired => "the application has expired",
            Status::Created | Status::Submitted => "the application has not been decided yet",
            Status::Approved | Status::InReview => {
                "the application is not at the step this change needs"
            }
        }),
    }
}
