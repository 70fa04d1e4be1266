//! Submitting an application to the engine, however the applicant's
//! answers were collected (the REST tier's submit, the hosted journey).

use lendhub_domain::ids::{DecisionId, HubId, VerificationId};
use lendhub_domain::lending::application::{Application, CannotSubmit};
use lendhub_domain::lending::kyc;
use lendhub_domain::lending::underwriting::{Banking, Facts};
use lendhub_domain::marketplace;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{EventWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::error::FlowError;
use crate::flows::events::event;
use crate::flows::lending::{company_and_credit, models, shadow};
use crate::views::application::ApplicationView;
use crate::views::decision::DecisionView;

fn refused(e: CannotSubmit) -> FlowError {
    FlowError::Conflict(match e.0 {
        lendhub_domain::lending::application::Status::Expired => "the application has expired",
        lendhub_domain::lending::application::Status::Withdrawn => "the application was withdrawn",
        _ => "the application was already submitted",
    })
}

/// What the identity checks `ids` of `owner`'s say together: the worst of
/// them decides. A check that is not `owner`'s is 404.
pub async fn identity_of(
    cx: &Context,
    owner: &Tenant,
    ids: &[String],
) -> Result<Option<kyc::Status>, FlowError> {
    let mut identity = None;
    for raw in ids {
        let missing = FlowError::NotFound("identity check");
        let id = VerificationId::parse(raw).ok_or(missing)?;
        let v = cx
            .lending
            .verification(owner, &id)
            .await?
            .ok_or(FlowError::NotFound("identity check"))?;
        if identity != Some(kyc::Status::ReviewRequired) {
            identity = Some(v.status);
        }
    }
    Ok(identity)
}

/// Submission however the applicant's answers were collected (this call, or
/// the hosted journey's last step): `application.submitted`, the engine's
/// decision and `decision.completed`, as writes to commit together.
pub(crate) async fn decide(
    cx: &Context,
    application: &Application,
    (payout_bank, banking): (&str, Option<Banking>),
    identity: Option<kyc::Status>,
    now: OffsetDateTime,
) -> Result<(ApplicationView, WriteSet), FlowError> {
    let owner = &application.owner;
    let (company, credit) = company_and_credit(cx, application).await?;
    // Signals commit over the application's version, as this submission
    // does: none can arrive between this read and the decision unweighed.
    let signals = cx.commercial.signals(owner, &application.id).await?;
    let facts = Facts::new(
        &company,
        application.amount.as_pence(),
        application.term_months,
        credit,
        banking,
        identity,
        marketplace::weigh(&signals),
    )
    .with_register(&company, now.date());
    let decision_id: DecisionId =
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let in_force = models(cx).await?;
    let (submitted, mut decided, decision) = application
        .submit(decision_id, facts, in_force.champion, now)
        .map_err(refused)?;
    let shadowed = shadow(&decision, in_force.challenger, now);
    decided.payout_bank = Some(payout_bank.to_owned());
    let render = |e: serde_json::Error| FlowError::Internal(e.to_string());
    let submitted_event = event(
        owner,
        EventType::ApplicationSubmitted,
        &ApplicationView::new(&submitted, &cx.links),
        now,
    )
    .map_err(render)?;
    let decision_view = DecisionView::new(&decision);
    let decided_event =
        event(owner, EventType::DecisionCompleted, &decision_view, now).map_err(render)?;
    let view =
        ApplicationView::new(&decided, &cx.links).with_decision(DecisionView::new(&decision));
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateApplication(decided))
        .push(LendingWrite::InsertDecision(decision))
        .push(EventWrite::InsertEvent(submitted_event))
        .push(EventWrite::InsertEvent(decided_event));
    if let Some(shadowed) = shadowed {
        writes.push(shadowed);
    }
    Ok((view, writes))
}
