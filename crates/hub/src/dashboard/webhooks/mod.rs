//! The dashboard's webhook endpoints: each with its status and its
//! deliveries, and — for the roles that manage webhooks — the forms that
//! re-enable an endpoint the delivery worker disabled (hub seed: "re-enabled
//! from the dashboard"), roll its signing secret (shown once), retry a failed
//! delivery and replay a delivered event. Each action commits with its audit
//! line in one transaction; one file per action.

mod deliveries;
mod enable;
mod replay;
mod retry;
mod secret;

use askama::Template;
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::partner::dashboard::{Action, Environment};
use lendhub_domain::webhooks::endpoint::EndpointStatus;
use lendhub_store::CommitError;

use super::forms::{ActionForm, EXPIRED, Refused, audit_line, form_id, once};
use super::pages::{Frame, ListQuery, screen, tenant};
use super::refusals::{forbidden, not_found, unavailable};
use super::session::Staff;
use crate::dashboard::state::DashboardState;
use crate::flows::change_endpoint::enabling;

pub use deliveries::deliveries;
pub use enable::enable;
pub use replay::replay;
pub use retry::retry;
pub use secret::roll_secret;

struct EndpointRow {
    id: String,
    url: String,
    status: &'static str,
    events: String,
    description: String,
}

#[derive(Template)]
#[template(path = "dashboard/webhooks.html")]
struct Webhooks {
    f: Frame,
    endpoints: Vec<EndpointRow>,
    can_manage: bool,
    /// Names this rendering of the forms: a form submitted twice is
    /// recognised (the roll is not idempotent by its nature).
    form_id: String,
}

/// `GET /dashboard/webhooks`
pub async fn list(
    State(state): State<DashboardState>,
    staff: Staff,
    Query(q): Query<ListQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let Ok(records) = state.events.endpoints(&tenant(&staff, env)).await else {
        return unavailable();
    };
    let mut endpoints: Vec<_> = records.into_iter().map(|r| r.endpoint).collect();
    endpoints.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
    screen(
        &state,
        StatusCode::OK,
        &Webhooks {
            f: Frame::of(&state, &staff, env),
            endpoints: endpoints
                .iter()
                .map(|e| EndpointRow {
                    id: e.id.to_string(),
                    url: e.url.clone(),
                    status: e.status.as_str(),
                    events: e.enabled_events.join(", "),
                    description: e.description.clone().unwrap_or_default(),
                })
                .collect(),
            can_manage: staff.role.may(Action::ManageWebhooks),
            form_id: form_id(),
        },
    )
}

/// What a role that does not manage webhooks is told.
const NOT_YOURS: &str = "Your role does not manage webhooks. Ask an owner or a developer.";

/// The checks every webhook form passes first.
fn admitted(staff: &Staff, form: &ActionForm) -> Result<Environment, &'static str> {
    super::forms::admitted(staff, form, Action::ManageWebhooks, NOT_YOURS)
}

/// What every action on one endpoint starts from: the form admitted (CSRF,
/// role), the caller's endpoint `id` in the form's environment, its owner,
/// and now on the owner's clock.
struct Target {
    env: Environment,
    owner: lendhub_domain::tenant::Tenant,
    endpoint: lendhub_domain::webhooks::endpoint::WebhookEndpoint,
    now: time::OffsetDateTime,
}

async fn target(
    state: &DashboardState,
    staff: &Staff,
    form: &ActionForm,
    id: &str,
) -> Result<Target, Refused> {
    let env = admitted(staff, form).map_err(Refused::Forbidden)?;
    let owner = tenant(staff, env);
    let (Ok(records), Ok(now)) = (
        state.events.endpoints(&owner).await,
        state.flows.now_for(&owner).await,
    ) else {
        return Err(Refused::Unavailable);
    };
    let endpoint = records
        .into_iter()
        .map(|r| r.endpoint)
        .find(|e| e.id.as_str() == id)
        .ok_or(Refused::NotFound)?;
    Ok(Target {
        env,
        owner,
        endpoint,
        now,
    })
}
