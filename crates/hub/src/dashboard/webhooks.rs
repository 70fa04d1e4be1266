//! The dashboard's webhook endpoints: each with its status, and — for the
//! roles that manage webhooks — the form that re-enables one the delivery
//! worker disabled (hub seed: "re-enabled from the dashboard"). The action
//! commits with its event and its audit line in one transaction.

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

use super::pages::{Frame, ListQuery, forbidden, not_found, screen, tenant, unavailable};
use super::session::Staff;
use crate::partner::rest::webhook_endpoints::enable::enabling;
use crate::partner::state::PartnerState;

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
        },
    )
}

#[derive(Deserialize)]
pub struct ActionForm {
    csrf_token: String,
    env: Option<String>,
}

/// `POST /dashboard/webhooks/{id}/enable`: idempotent (an endpoint that is
/// not disabled is left as it is, and nothing is audited).
pub async fn enable(
    State(state): State<PartnerState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<ActionForm>,
) -> Response {
    if !staff.csrf_matches(&form.csrf_token) {
        return forbidden("This form has expired. Go back, reload the page and try again.");
    }
    if !staff.role.may(Action::ManageWebhooks) {
        return forbidden("Your role does not manage webhooks. Ask an owner or a developer.");
    }
    let env = Environment::from_query(form.env.as_deref());
    let owner = tenant(&staff, env);
    let (Ok(records), Ok(now)) = (
        state.events.endpoints(&owner).await,
        state.now_for(&owner).await,
    ) else {
        return unavailable();
    };
    let Some(current) = records
        .into_iter()
        .map(|r| r.endpoint)
        .find(|e| e.id.as_str() == id)
    else {
        return not_found();
    };
    let back = Redirect::to(&format!("/dashboard/webhooks?env={}", env.as_str())).into_response();
    if current.status != EndpointStatus::Disabled {
        return back;
    }
    let Ok((_, mut writes)) = enabling(&owner, &current, env.livemode(), now) else {
        return unavailable();
    };
    let at_ms = state.clock.now_ms();
    writes.push(AuditRecord {
        id: new_hub_id::<AuditId>(at_ms.unsigned_abs()).to_string(),
        partner_client_id: staff.session.partner_client_id.clone(),
        user_id: staff.session.user_id.clone(),
        email: staff.member.email.clone(),
        action: "webhook_endpoint.enable".into(),
        target: id,
        environment: env.as_str().into(),
        at_ms,
    });
    match state.units.commit(writes).await {
        Ok(()) => {
            state.outbox_wake.notify_one();
            back
        }
        // Enabled by someone else meanwhile: what they see is what we wanted.
        Err(CommitError::Conflict) => back,
        Err(_) => unavailable(),
    }
}

struct AuditRow {
    at: String,
    email: String,
    action: String,
    target: String,
    environment: String,
}

#[derive(Template)]
#[template(path = "dashboard/audit.html")]
struct Audit {
    f: Frame,
    lines: Vec<AuditRow>,
}

/// `GET /dashboard/audit`: owners only.
pub async fn audit(
    State(state): State<PartnerState>,
    staff: Staff,
    Query(q): Query<ListQuery>,
) -> Response {
    if !staff.role.may(Action::ManageStaff) {
        return forbidden("Only your partner's owners read the audit log.");
    }
    let env = Environment::from_query(q.env.as_deref());
    let Ok(lines) = state
        .dashboard
        .audit_log(&staff.session.partner_client_id, 200)
        .await
    else {
        return unavailable();
    };
    screen(
        &state,
        StatusCode::OK,
        &Audit {
            f: Frame::of(&staff, env),
            lines: lines
                .into_iter()
                .map(|l| AuditRow {
                    at: lendhub_domain::clock::from_unix_ms(l.at_ms)
                        .format(&time::format_description::well_known::Rfc3339)
                        .unwrap_or_default(),
                    email: l.email,
                    action: l.action,
                    target: l.target,
                    environment: l.environment,
                })
                .collect(),
        },
    )
}
