//! `POST /decisions/{id}/refresh`: the model run again on an approved or
//! referred application, with the register and the credit file read anew
//! and the applicant's bank and identity facts kept as the journey
//! gathered them (reading the bank again needs the applicant).

use lendhub_domain::lending::underwriting::Facts;
use lendhub_domain::marketplace;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{EventWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::error::FlowError;
use crate::flows::events::event;
use crate::flows::lending::{company_and_credit, find_decision, models, refused, shadow};
use crate::views::decision::DecisionView;

/// Decision `raw_id` of `owner`'s made again at `now`: it keeps its id, and
/// the application follows its new outcome (`decision.completed`). A
/// locked decision (offer accepted) is refused, as is a declined one.
pub async fn refresh(
    cx: &Context,
    owner: &Tenant,
    raw_id: &str,
    now: OffsetDateTime,
) -> Result<(DecisionView, WriteSet), FlowError> {
    let (application, decision) = find_decision(cx, owner, raw_id).await?;
    if decision.locked() {
        return Err(FlowError::DecisionLocked);
    }
    let (company, credit) = company_and_credit(cx, &application).await?;
    let kept = &decision.facts;
    // Every accepted signal arrived while the decision was unresolved; a
    // referral's may be newer than its decision.
    let signals = cx.commercial.signals(owner, &application.id).await?;
    let facts = Facts::new(
        &company,
        application.amount.as_pence(),
        application.term_months,
        credit,
        kept.banking,
        kept.identity,
        marketplace::weigh(&signals),
    )
    .with_register(&company, now.date());
    // "Re-runs the model": the champion in force now, on fresh facts.
    let in_force = models(cx).await?;
    let (decided, redecided) = application
        .redecide(&decision, facts, in_force.champion, now)
        .map_err(refused)?;
    let shadowed = shadow(&redecided, in_force.challenger, now);
    let view = DecisionView::new(&redecided);
    let completed = event(owner, EventType::DecisionCompleted, &view, now)?;
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateApplication(decided))
        .push(LendingWrite::UpdateDecision(redecided))
        .push(EventWrite::InsertEvent(completed));
    if let Some(shadowed) = shadowed {
        writes.push(shadowed);
    }
    Ok((view, writes))
}
