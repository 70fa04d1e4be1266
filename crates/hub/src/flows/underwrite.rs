//! The lender's side of a decision, driven by the operator CLI
//! (`lendhub underwriting …`): the queue of referrals, an underwriter's
//! approval or decline of one (the seed's "second decision.completed"), and
//! the owner's audited release of a locked decision. Every act is appended
//! to the underwriting log in the same commit as the change it made.

use lendhub_domain::ids::{DecisionId, HubId};

use lendhub_domain::lending::application::{
    Act, Application, CannotChange, Decision, UnderwritingAct,
};
use lendhub_domain::lending::underwriting::{approve_referral, decline_referral, simulated_review};
use lendhub_domain::marketplace;
use lendhub_domain::sandbox::decisioning::ReasonCode;
use lendhub_domain::sandbox::events::EventType;
use lendhub_store::{
    CommercialStore, CommitError, EventWrite, LendingStore, LendingWrite, StoreError, UnitOfWork,
    WriteSet,
};
use time::OffsetDateTime;

use crate::flows::events::event;
use crate::flows::review_mail::review_mail;
use crate::views::decision::DecisionView;

/// What an underwriter rules on a referral.
#[derive(Clone, Copy, Debug)]
pub enum Ruling {
    Approve,
    /// Declined for the reason given (one of the seed's codes).
    Decline(ReasonCode),
    /// The test environment's simulated underwriter decides
    /// (`underwriting::simulated_review`).
    Simulated,
}

/// Who the simulated underwriter is in the log.
pub const SIMULATED_UNDERWRITER: &str = "simulated underwriter (test environment)";

#[derive(Debug, thiserror::Error)]
pub enum UnderwritingError {
    #[error("no decision {0}")]
    NotFound(String),
    #[error("refused: {0}")]
    Refused(CannotChange),
    #[error("the application changed meanwhile; run the command again")]
    Conflict,
    #[error("an act needs the name of who does it and why (--note or --reason)")]
    Unattributed,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Other(String),
}

/// A referral waiting for an underwriter, with the decision that referred it.
pub struct Referral {
    pub application: Application,
    pub decision: Decision,
}

/// Referrals waiting for an underwriter, oldest first.
pub async fn queue(store: &dyn LendingStore, limit: u32) -> Result<Vec<Referral>, StoreError> {
    let mut out = Vec::new();
    for application in store.in_review(limit).await? {
        let Some(id) = &application.decision_id else {
            continue;
        };
        if let Some(decision) = store.hub_decision(&application.owner, id).await? {
            out.push(Referral {
                application,
                decision,
            });
        }
    }
    Ok(out)
}

async fn find(
    store: &dyn LendingStore,
    id: &str,
) -> Result<(Application, Decision), UnderwritingError> {
    let missing = || UnderwritingError::NotFound(id.to_owned());
    let Some(id) = DecisionId::parse(id) else {
        return Err(missing());
    };
    let decision = store.decision_any_owner(&id).await?.ok_or_else(missing)?;
    let application = store
        .hub_application(&decision.owner, &decision.application_id)
        .await?
        .ok_or_else(missing)?;
    Ok((application, decision))
}

fn act(d: &Decision, act: Act, actor: &str, note: &str, at: OffsetDateTime) -> UnderwritingAct {
    UnderwritingAct {
        decision_id: d.id.clone(),
        owner: d.owner.clone(),
        act,
        actor: actor.to_owned(),
        note: note.to_owned(),
        at,
    }
}

async fn commit(store: &dyn UnitOfWork, writes: WriteSet) -> Result<(), UnderwritingError> {
    store.commit(writes).await.map_err(|e| match e {
        CommitError::Conflict => UnderwritingError::Conflict,
        other => UnderwritingError::Other(other.to_string()),
    })
}

fn attributed(actor: &str, note: &str) -> Result<(), UnderwritingError> {
    if actor.trim().is_empty() || note.trim().is_empty() {
        return Err(UnderwritingError::Unattributed);
    }
    Ok(())
}

/// The stores an underwriter's settlement reads and writes.
pub struct Books<'a> {
    pub lending: &'a dyn LendingStore,
    /// The marketplace signals that arrived while the referral waited.
    pub commercial: &'a dyn CommercialStore,
    pub units: &'a dyn UnitOfWork,
    /// `{apply_url}`: the applicant is told of the ruling with a link to
    /// their journey's page.
    pub apply_url: &'a str,
    /// Partners' brands: the e-mail names the partner as the applicant
    /// knows it.
    pub brands: &'a dyn lendhub_store::BrandStore,
}

/// An underwriter settles a referral: the decision is decided again by a
/// person (approved with an offer, or declined for the reason given), the
/// application follows, and `decision.completed` is emitted a second time.
pub async fn settle(
    books: &Books<'_>,
    decision_id: &str,
    ruling: Ruling,
    underwriter: &str,
    note: &str,
    now: OffsetDateTime,
) -> Result<Decision, UnderwritingError> {
    attributed(underwriter, note)?;
    let (application, decision) = find(books.lending, decision_id).await?;
    settle_found(
        books,
        &application,
        &decision,
        ruling,
        underwriter,
        note,
        now,
    )
    .await
}

/// `settle`, for a referral already read.
///
/// The signals are read again: any that arrived while the referral waited
/// are weighed (a fraud marker declines whoever rules) and kept in the
/// decision's facts.
pub async fn settle_found(
    books: &Books<'_>,
    application: &Application,
    decision: &Decision,
    ruling: Ruling,
    underwriter: &str,
    note: &str,
    now: OffsetDateTime,
) -> Result<Decision, UnderwritingError> {
    let signals = books
        .commercial
        .signals(&application.owner, &application.id)
        .await?;
    let mut decision = decision.clone();
    decision.facts.signals = marketplace::weigh(&signals);
    let decision = &decision;
    let verdict = match ruling {
        Ruling::Approve => approve_referral(&decision.facts),
        Ruling::Decline(code) => decline_referral(code),
        Ruling::Simulated => simulated_review(&decision.facts),
    };
    let kind = match verdict.outcome {
        lendhub_domain::sandbox::decisioning::Outcome::Approved => Act::Approve,
        _ => Act::Decline,
    };
    let (application, settled) = application
        .resolve_referral(decision, verdict, now)
        .map_err(UnderwritingError::Refused)?;
    let completed = event(
        &settled.owner,
        EventType::DecisionCompleted,
        &DecisionView::new(&settled),
        now,
    )
    .map_err(|e| UnderwritingError::Other(e.to_string()))?;
    let journey = books.lending.journey(&application.id).await?;
    let link = format!("{}/{}", books.apply_url, application.id);
    let partner = match application.owner.kind() {
        lendhub_domain::tenant::TenantKind::Partner { client_id, .. } => books
            .brands
            .branding(client_id)
            .await?
            .and_then(|b| b.display_name),
        _ => None,
    };
    let told = review_mail(
        &application,
        journey.as_ref(),
        &settled,
        (&link, partner.as_deref()),
        now,
    );
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateApplication(application))
        .push(LendingWrite::UpdateDecision(settled.clone()))
        .push(LendingWrite::RecordAct(act(
            &settled,
            kind,
            underwriter,
            note,
            now,
        )))
        .push(EventWrite::InsertEvent(completed));
    if let Some(mail) = told {
        writes.push(mail);
    }
    commit(books.units, writes).await?;
    Ok(settled)
}

/// The lender's owner releases a locked decision (the seed's "owner-sudo
/// release"): the acceptance and signature are set aside, the offer is
/// indicative again, and the act is logged with who and why. No event: the
/// partner sees the decision unlocked (`accepted_at` null).
pub async fn release(
    lending: &dyn LendingStore,
    units: &dyn UnitOfWork,
    decision_id: &str,
    owner: &str,
    reason: &str,
    now: OffsetDateTime,
) -> Result<Decision, UnderwritingError> {
    attributed(owner, reason)?;
    let (application, decision) = find(lending, decision_id).await?;
    let (application, released) = application
        .release(&decision, now)
        .map_err(UnderwritingError::Refused)?;
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateApplication(application))
        .push(LendingWrite::UpdateDecision(released.clone()))
        .push(LendingWrite::RecordAct(act(
            &released,
            Act::Release,
            owner,
            reason,
            now,
        )));
    commit(units, writes).await?;
    Ok(released)
}
