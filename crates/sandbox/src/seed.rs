//! What `POST /v1/applications` stores, made without a request: the
//! benchmark's data generator fills a database with rows the service cannot
//! tell from its own (the same records, rendered views and events).

use lendhub_domain::money::Money;
use lendhub_domain::sandbox::application::Application;
use lendhub_domain::sandbox::decisioning::decide;
use lendhub_domain::sandbox::events::{Event, EventType};
use lendhub_domain::sandbox::ids::SandboxId;
use lendhub_domain::tenant::Tenant;
use lendhub_store::ApplicationRecord;
use lendhub_system::NewRandom;
use time::OffsetDateTime;

use crate::SandboxError;
use crate::event_log::event;
use crate::views::{ApplicationView, DecisionView, application_record};

/// One application as the API would have created it at `now`, with its
/// `application.created` and `decision.completed` events.
pub fn application(
    owner: &Tenant,
    company_number: &str,
    amount_pence: i64,
    now: OffsetDateTime,
) -> Result<(ApplicationRecord, [Event; 2]), SandboxError> {
    let id = SandboxId::new_random(lendhub_domain::clock::unix_ms(now) as u64);
    let decision = decide(company_number, amount_pence);
    let app = Application::new(
        id,
        owner.clone(),
        company_number.to_owned(),
        Money::pence(amount_pence),
        decision,
        now,
    );
    let created = event(
        owner,
        EventType::ApplicationCreated,
        &ApplicationView::from(&app),
        now,
    )?;
    let decided = event(
        owner,
        EventType::DecisionCompleted,
        &DecisionView::from(&app),
        now,
    )?;
    Ok((application_record(&app)?, [created, decided]))
}
