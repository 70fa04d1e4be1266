//! Opening an application for a partner: the request checked, the company
//! found and eligible on the register, the cooling-off after a decline
//! waited out, and the writes that record it (the introduction, the
//! applicant's handoff e-mail, the `application.created` event).

use lendhub_domain::ids::{ApplicationId, HubId, SubAccountId};
use lendhub_domain::lending::application::{self, Application, Request};
use lendhub_domain::lending::introduction::Introduction;
use lendhub_domain::problem::Problem;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::tenant::{Tenant, TenantKind};
use lendhub_store::{CommercialWrite, EventWrite, LendingWrite, MailRecord, WriteSet};
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::error::FlowError;
use crate::flows::events::event;
use crate::views::application::ApplicationView;

/// Who opens the application: the partner's client, by id and by the name
/// the applicant's e-mail gives.
pub struct Opener<'a> {
    pub owner: &'a Tenant,
    pub client_id: &'a str,
    pub client_name: &'a str,
}

/// The application `request` opens for `by` at `now`, as the partner sees
/// it, and the writes that record it.
pub async fn open(
    cx: &Context,
    by: &Opener<'_>,
    request: Request,
    now: OffsetDateTime,
) -> Result<(ApplicationView, WriteSet), FlowError> {
    let owner = by.owner;
    let checked = application::check(request)?;
    // The distribution partner the deal is attributed to.
    if let Some(sub) = &checked.introduction_id {
        let known = match SubAccountId::parse(sub) {
            Some(id) => cx.commercial.sub_account(owner, &id).await?.is_some(),
            None => false,
        };
        if !known {
            return Err(refused("introduction_id", "unknown_sub_account"));
        }
    }
    let company = cx
        .register
        .for_owner(owner)
        .lookup(&checked.company_number)
        .await
        .map_err(|e| FlowError::Unavailable(e.to_string()))?
        .ok_or_else(|| refused("business.company_number", "not_found"))?;
    // The seed: "rejected at application creation with validation_failed".
    company
        .eligibility()
        .map_err(|_| refused("business.company_number", "not_eligible"))?;
    // A company this partner saw declined waits out the cooling-off.
    if let Some(declined) = cx
        .lending
        .latest_declined(owner, &checked.company_number)
        .await?
    {
        application::check_cooling_off(declined.updated_at, now)?;
    }
    let id: ApplicationId = lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let application = Application::new(id, owner.clone(), by.client_id, checked, &company, now);
    let view = ApplicationView::new(&application, &cx.links);
    let created = event(owner, EventType::ApplicationCreated, &view, now)?;
    let mut writes = WriteSet::default();
    if let Some(sub_account_id) = application
        .introduction_id
        .as_deref()
        .and_then(SubAccountId::parse)
    {
        writes.push(CommercialWrite::InsertIntroduction(Introduction {
            id: lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64),
            owner: owner.clone(),
            sub_account_id,
            application_id: application.id.clone(),
            introduced_at: now,
        }));
    }
    // With nowhere to return the applicant to, the partner may not send
    // them the link itself: lendhub does, in this commit.
    // The name the applicant knows the partner by, where it gave one.
    let partner = crate::flows::branding::display_name(cx, owner).await?;
    let partner = partner.as_deref().unwrap_or(by.client_name);
    if let Some(mail) = handoff_mail(partner, &application, &view, cx.clock.now_ms()) {
        writes.push(LendingWrite::MailApplicant(mail));
    }
    writes
        .push(LendingWrite::InsertApplication(application))
        .push(EventWrite::InsertEvent(created));
    Ok((view, writes))
}

fn refused(field: &str, reason: &'static str) -> FlowError {
    FlowError::Validation(vec![Problem::new(field, reason)])
}

/// The e-mail that carries the handoff link to the applicant the partner
/// named, when the application has no `redirect_uri` (issue #44 item 19):
/// greeted by the `first_name` given, sent at once on the service clock.
fn handoff_mail(
    partner: &str,
    application: &Application,
    view: &ApplicationView,
    due_ms: i64,
) -> Option<MailRecord> {
    if application.redirect_uri.is_some() {
        return None;
    }
    let recipient = application.applicant.email.as_deref()?;
    let link = view.handoff_url.as_deref()?;
    let greeting = match application.applicant.first_name.as_deref() {
        Some(name) if !name.trim().is_empty() => format!("Dear {}", name.trim()),
        _ => "Hello".to_owned(),
    };
    let live = matches!(
        application.owner.kind(),
        TenantKind::Partner { livemode: true, .. }
    );
    let test = if live { "" } else { "[TEST] " };
    Some(MailRecord {
        id: format!("mail_{}", application.id),
        enquiry_id: None,
        recipient: recipient.to_owned(),
        subject: format!(
            "{test}Your business loan application for {}",
            application.company_name
        ),
        body: format!(
            "{greeting},\n\n{partner} has started an application for a business loan of \
             {amount} over {term} months for {company} ({number}), and named you as the \
             person to complete it.\n\nTo continue, open this link and sign in with this \
             e-mail address ({recipient}):\n\n{link}\n\nThe link works once and the \
             application stays open until {until}. If you did not expect this e-mail, \
             ignore it: nothing happens unless you open the link.\n",
            amount = lendhub_domain::people::money(application.amount),
            term = application.term_months,
            company = application.company_name,
            number = application.company_number,
            until = lendhub_domain::people::moment(application.expires_at),
        ),
        due_ms,
    })
}
