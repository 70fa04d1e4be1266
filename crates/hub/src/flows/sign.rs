//! Accepting an offer and signing the agreement, however it was given
//! (the REST tier's accept, the hosted journey's offer page).

use lendhub_domain::clock::unix_ms;
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::agreement::{Figures, Signed};
use lendhub_domain::lending::application::{Application, Decision};
use lendhub_domain::lending::journey::Journey;
use lendhub_domain::people;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::TenantKind;
use lendhub_store::{EventWrite, LendingWrite, PublicWrite, WriteSet};
use serde::Serialize;
use time::OffsetDateTime;

use crate::documents;
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

/// Who signs, and from where.
pub(crate) struct Signer<'a> {
    /// Their full name, as they typed it.
    pub name: &'a str,
    /// The address the signature came from, as the service saw it.
    pub ip_address: Option<std::net::IpAddr>,
    /// The hosted journey they signed on, whose applicant is e-mailed a
    /// link to the signed copy; `None` for the white-label call (the
    /// partner fetches the copy and passes it on).
    pub journey: Option<&'a Journey>,
    /// The name the applicant knows the partner by, if it gave one.
    pub partner: Option<&'a str>,
}

/// Acceptance however it was given (this call, or the hosted journey's offer
/// page): the application and its locked decision with `offer.accepted` and
/// `agreement.signed`, and the agreement as signed, as writes to commit
/// together.
pub(crate) fn sign(
    cx: &Context,
    application: &lendhub_domain::lending::application::Application,
    decision: &Decision,
    signer: Signer<'_>,
    now: OffsetDateTime,
) -> Result<(ApplicationView, WriteSet), FlowError> {
    let owner = &application.owner;
    let (application, decision) = application
        .accept(
            decision,
            signer.name.to_owned(),
            lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64),
            now,
        )
        .map_err(refused)?;
    let [accepted, signed] =
        events(owner, &decision, now).map_err(|e| FlowError::Internal(e.to_string()))?;
    let figures = Figures::of(cx.lender(), &application, &decision, Some(signer.name))
        .ok_or_else(|| FlowError::Internal(format!("decision {} has no offer", decision.id)))?;
    let agreement = documents::sign(
        sibling_id("agr_", &decision),
        figures,
        signer.name,
        now,
        signer.ip_address.map(|ip| ip.to_string()),
    )
    .map_err(|e| FlowError::Internal(e.to_string()))?;
    let view =
        ApplicationView::new(&application, &cx.links).with_decision(DecisionView::new(&decision));
    let mut writes = WriteSet::default();
    if let Some(mail) = signer
        .journey
        .and_then(|j| signed_mail(&application, j, signer.partner, &cx.links.urls, &agreement))
    {
        writes.push(mail);
    }
    writes
        .push(LendingWrite::UpdateApplication(application))
        .push(LendingWrite::UpdateDecision(decision))
        .push(LendingWrite::RecordAgreement {
            owner: owner.clone(),
            agreement,
        })
        .push(EventWrite::InsertEvent(accepted))
        .push(EventWrite::InsertEvent(signed));
    Ok((view, writes))
}

/// The e-mail that gives the applicant who signed on the hosted journey
/// their copy: a link to the PDF, behind their sign-in.
fn signed_mail(
    application: &Application,
    journey: &Journey,
    partner: Option<&str>,
    urls: &crate::links::Urls,
    agreement: &Signed,
) -> Option<PublicWrite> {
    let person = journey.applicant.as_ref()?;
    let live = matches!(
        application.owner.kind(),
        TenantKind::Partner { livemode: true, .. }
    );
    let test = if live { "" } else { "[TEST] " };
    let f = &agreement.figures;
    let link = format!("{}/{}/agreement.pdf", urls.apply(), application.id);
    Some(PublicWrite::Mail {
        id: format!(
            "mail_{}_signed_{}",
            agreement.decision_id,
            unix_ms(agreement.signed_at)
        ),
        recipient: person.email.clone(),
        subject: format!(
            "{test}Your signed loan agreement with {}",
            f.lender.legal_name
        ),
        body: format!(
            "Dear {name},\n\nYou signed the loan agreement for {company} on {when}: {amount} \
             over {term} months, repaid at {monthly} a month ({total} in all).\n\nYour copy, as \
             signed, is here (sign in with this e-mail address to open it):\n\n{link}\n\nThe \
             money is paid once the lender's checks before payment are complete. Keep this \
             e-mail: the agreement's fingerprint (SHA-256) is {hash}.\n{through}",
            name = person.given_name.trim(),
            company = application.company_name,
            when = people::moment(agreement.signed_at),
            amount = people::money(f.amount),
            term = f.term_months,
            monthly = people::money(f.monthly),
            total = people::money(f.total_repayable),
            hash = agreement.content_sha256,
            through = partner.map_or_else(String::new, |p| {
                format!("\nYou applied through {p}, who can answer questions about your loan.\n")
            }),
        ),
        due_ms: unix_ms(agreement.signed_at),
    })
}
