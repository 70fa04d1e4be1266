//! Accepting an offer and signing the agreement, however it was given
//! (the REST tier's accept, the hosted journey's offer page).

use lendhub_domain::ids::HubId;
use lendhub_domain::lending::application::Decision;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::TenantKind;
use lendhub_store::{EventWrite, LendingWrite, WriteSet};
use serde::Serialize;
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::error::FlowError;
use crate::flows::events::event;
use crate::flows::lending::refused;
use crate::views::application::ApplicationView;
use crate::views::decision::{DecisionView, OfferView};

/// The `offer.accepted` event's object.
#[derive(Serialize)]
struct AcceptedOffer<'a> {
    id: String,
    object: &'static str,
    decision_id: &'a str,
    application_id: &'a str,
    reference: Option<&'a str>,
    #[serde(flatten)]
    terms: Option<&'a OfferView>,
    #[serde(with = "time::serde::rfc3339")]
    accepted_at: OffsetDateTime,
    livemode: bool,
}

/// The `agreement.signed` event's object.
#[derive(Serialize)]
struct SignedAgreement<'a> {
    id: String,
    object: &'static str,
    application_id: &'a str,
    decision_id: &'a str,
    reference: Option<&'a str>,
    signed_by: Option<&'a str>,
    #[serde(with = "time::serde::rfc3339")]
    signed_at: OffsetDateTime,
    amount_pence: i64,
    term_months: u32,
    livemode: bool,
}

/// The offer's and the agreement's ids share the decision's time-ordered
/// part: one offer and one agreement per decision.
fn sibling_id(prefix: &str, d: &Decision) -> String {
    let s = d.id.as_str();
    format!("{prefix}{}", s.split_once('_').map_or(s, |(_, rest)| rest))
}

/// The `offer.accepted` and `agreement.signed` objects of the accepted
/// decision `d`, at `at`; `view` is `d`'s, whose offer the first carries.
fn accepted<'a>(
    owner: &lendhub_domain::tenant::Tenant,
    d: &'a Decision,
    view: &'a DecisionView,
    at: OffsetDateTime,
) -> (AcceptedOffer<'a>, SignedAgreement<'a>) {
    let livemode = matches!(owner.kind(), TenantKind::Partner { livemode: true, .. });
    let offer = AcceptedOffer {
        id: sibling_id("ofr_", d),
        object: "offer",
        decision_id: d.id.as_str(),
        application_id: d.application_id.as_str(),
        reference: d.reference.as_deref(),
        terms: view.offer(),
        accepted_at: at,
        livemode,
    };
    let agreement = SignedAgreement {
        id: sibling_id("agr_", d),
        object: "agreement",
        application_id: d.application_id.as_str(),
        decision_id: d.id.as_str(),
        reference: d.reference.as_deref(),
        signed_by: d.signed_by.as_deref(),
        signed_at: at,
        amount_pence: d
            .verdict
            .offer
            .as_ref()
            .map_or(0, |o| o.amount_pence.as_pence()),
        term_months: d.verdict.offer.as_ref().map_or(0, |o| o.term_months),
        livemode,
    };
    (offer, agreement)
}

/// The same two objects as JSON: what the test environment's events on
/// demand carry for these types (`test_helpers::specimens`).
pub(crate) fn accepted_objects(
    owner: &lendhub_domain::tenant::Tenant,
    d: &Decision,
    at: OffsetDateTime,
) -> Result<(serde_json::Value, serde_json::Value), serde_json::Error> {
    let view = DecisionView::new(d);
    let (offer, agreement) = accepted(owner, d, &view, at);
    Ok((
        serde_json::to_value(&offer)?,
        serde_json::to_value(&agreement)?,
    ))
}

fn events(
    owner: &lendhub_domain::tenant::Tenant,
    d: &Decision,
    at: OffsetDateTime,
) -> Result<[lendhub_domain::sandbox::events::Event; 2], serde_json::Error> {
    let view = DecisionView::new(d);
    let (offer, agreement) = accepted(owner, d, &view, at);
    Ok([
        event(owner, EventType::OfferAccepted, &offer, at)?,
        event(owner, EventType::AgreementSigned, &agreement, at)?,
    ])
}

/// Acceptance however it was given (this call, or the hosted journey's offer
/// page): the application and its locked decision with `offer.accepted` and
/// `agreement.signed`, as writes to commit together.
pub(crate) fn sign(
    cx: &Context,
    application: &lendhub_domain::lending::application::Application,
    decision: &Decision,
    signed_by: &str,
    now: OffsetDateTime,
) -> Result<(ApplicationView, WriteSet), FlowError> {
    let owner = &application.owner;
    let (application, decision) = application
        .accept(
            decision,
            signed_by.to_owned(),
            lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64),
            now,
        )
        .map_err(refused)?;
    let [accepted, signed] =
        events(owner, &decision, now).map_err(|e| FlowError::Internal(e.to_string()))?;
    let view =
        ApplicationView::new(&application, &cx.links).with_decision(DecisionView::new(&decision));
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateApplication(application))
        .push(LendingWrite::UpdateDecision(decision))
        .push(EventWrite::InsertEvent(accepted))
        .push(EventWrite::InsertEvent(signed));
    Ok((view, writes))
}
