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
use lendhub_domain::dashboard::{Action, Environment};
use lendhub_domain::hub_ids::AuditId;
use lendhub_domain::webhook::EndpointStatus;
use lendhub_store::{AuditRecord, CommitError};
use lendhub_system::new_hub_id;
use serde::Deserialize;
use sha2::Digest;

use super::pages::{Frame, ListQuery, forbidden, not_found, screen, tenant, unavailable};
use super::session::Staff;
use crate::partner::rest::webhook_endpoints::enable::enabling;
use crate::partner::state::PartnerState;

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
    State(state): State<PartnerState>,
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
            f: Frame::of(&staff, env),
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
            form_id: lendhub_system::random_token(18),
        },
    )
}

#[derive(Deserialize)]
pub struct ActionForm {
    csrf_token: String,
    env: Option<String>,
    form_id: Option<String>,
}

fn audit_line(
    staff: &Staff,
    action: &str,
    target: &str,
    env: Environment,
    at_ms: i64,
) -> AuditRecord {
    AuditRecord {
        id: new_hub_id::<AuditId>(at_ms.unsigned_abs()).to_string(),
        partner_client_id: staff.session.partner_client_id.clone(),
        user_id: staff.session.user_id.clone(),
        email: staff.member.email.clone(),
        action: action.into(),
        target: target.into(),
        environment: env.as_str().into(),
        at_ms,
    }
}

/// The checks every webhook form passes first, its CSRF token then the
/// role; the refusal says which.
fn admitted(staff: &Staff, form: &ActionForm) -> Result<Environment, &'static str> {
    if !staff.csrf_matches(&form.csrf_token) {
        return Err("This form has expired. Go back, reload the page and try again.");
    }
    if !staff.role.may(Action::ManageWebhooks) {
        return Err("Your role does not manage webhooks. Ask an owner or a developer.");
    }
    Ok(Environment::from_query(form.env.as_deref()))
}

/// The idempotency record of a one-time form (rolling a secret, replaying):
/// its `form_id` as the key, for `owner`, on the owner's clock; none when the
/// form carries no valid id. Only that the form was used is kept.
fn once(
    form: &ActionForm,
    owner: &lendhub_domain::tenant::Tenant,
    subject: &str,
    now: time::OffsetDateTime,
) -> Option<lendhub_store::IdempotencyRecord> {
    let form_id = form
        .form_id
        .as_deref()
        .filter(|f| (16..=64).contains(&f.len()))?;
    Some(lendhub_store::IdempotencyRecord {
        owner: owner.clone(),
        key: format!("dashboard:{form_id}"),
        fingerprint: sha2::Sha256::digest(subject.as_bytes()).into(),
        status: 200,
        body: Vec::new(),
        created_at_ms: lendhub_domain::clock::unix_ms(now),
    })
}

pub(super) fn rfc3339(ms: i64) -> String {
    lendhub_domain::clock::from_unix_ms(ms)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Why an action on one endpoint stops before it starts.
enum Refused {
    Forbidden(&'static str),
    NotFound,
    Unavailable,
}

impl Refused {
    fn page(self) -> Response {
        match self {
            Refused::Forbidden(why) => forbidden(why),
            Refused::NotFound => not_found(),
            Refused::Unavailable => unavailable(),
        }
    }
}

/// What every action on one endpoint starts from: the form admitted (CSRF,
/// role), the caller's endpoint `id` in the form's environment, its owner,
/// and now on the owner's clock.
struct Target {
    env: Environment,
    owner: lendhub_domain::tenant::Tenant,
    endpoint: lendhub_domain::webhook::WebhookEndpoint,
    now: time::OffsetDateTime,
}

async fn target(
    state: &PartnerState,
    staff: &Staff,
    form: &ActionForm,
    id: &str,
) -> Result<Target, Refused> {
    let env = admitted(staff, form).map_err(Refused::Forbidden)?;
    let owner = tenant(staff, env);
    let (Ok(records), Ok(now)) = (
        state.events.endpoints(&owner).await,
        state.now_for(&owner).await,
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
