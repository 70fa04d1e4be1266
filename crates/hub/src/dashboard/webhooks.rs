//! The dashboard's webhook endpoints: each with its status, and — for the
//! roles that manage webhooks — the forms that re-enable one the delivery
//! worker disabled (hub seed: "re-enabled from the dashboard") and that roll
//! its signing secret (shown once). Each action commits with its audit line
//! in one transaction.

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

/// `POST /dashboard/webhooks/{id}/enable`: idempotent (an endpoint that is
/// not disabled is left as it is, and nothing is audited).
pub async fn enable(
    State(state): State<PartnerState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<ActionForm>,
) -> Response {
    let env = match admitted(&staff, &form) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
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
    writes.push(audit_line(
        &staff,
        "webhook_endpoint.enable",
        &id,
        env,
        state.clock.now_ms(),
    ));
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

#[derive(Template)]
#[template(path = "dashboard/secret.html")]
struct SecretShown {
    f: Frame,
    endpoint: String,
    secret: String,
    previous_until: String,
}

/// How long the replaced secret still signs (beside the new one): a day, as
/// the API's default.
const OVERLAP: time::Duration = time::Duration::days(1);

/// `POST /dashboard/webhooks/{id}/roll-secret`: a new signing secret, shown
/// on the answer and never again. The form's id is recorded as an
/// idempotency key in the same commit, so a second submission of the same
/// form rolls nothing (and cannot show the secret again).
pub async fn roll_secret(
    State(state): State<PartnerState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<ActionForm>,
) -> Response {
    use lendhub_store::{EventWrite, IdempotencyRecord, WriteSet};
    use lendhub_system::Seal;
    let env = match admitted(&staff, &form) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
    let Some(form_id) = form.form_id.filter(|f| (16..=64).contains(&f.len())) else {
        return forbidden("This form has expired. Go back, reload the page and try again.");
    };
    let owner = tenant(&staff, env);
    let (Ok(records), Ok(now)) = (
        state.events.endpoints(&owner).await,
        state.now_for(&owner).await,
    ) else {
        return unavailable();
    };
    if !records.iter().any(|r| r.endpoint.id.as_str() == id) {
        return not_found();
    }
    let secret = lendhub_system::webhook_secret();
    let until = time::OffsetDateTime::now_utc() + OVERLAP;
    let at_ms = state.clock.now_ms();
    let mut writes = WriteSet::default();
    writes
        .push(EventWrite::RotateEndpointSecret {
            id: id.clone(),
            owner: owner.clone(),
            sealed_secret: state
                .master_key
                .seal(lendhub_webhooks::SECRET_PURPOSE, secret.as_bytes()),
            previous_expires_at_ms: lendhub_domain::clock::unix_ms(until),
        })
        .push(audit_line(
            &staff,
            "webhook_endpoint.roll_secret",
            &id,
            env,
            at_ms,
        ));
    // Only that the form was used: never the secret.
    writes.idempotency = Some(IdempotencyRecord {
        owner: owner.clone(),
        key: format!("dashboard:{form_id}"),
        fingerprint: sha2::Sha256::digest(id.as_bytes()).into(),
        status: 200,
        body: Vec::new(),
        created_at_ms: lendhub_domain::clock::unix_ms(now),
    });
    match state.units.commit(writes).await {
        Ok(()) => screen(
            &state,
            StatusCode::OK,
            &SecretShown {
                f: Frame::of(&staff, env),
                endpoint: id,
                secret,
                previous_until: until
                    .format(&time::format_description::well_known::Rfc3339)
                    .unwrap_or_default(),
            },
        ),
        Err(CommitError::IdempotencyKeyTaken) => super::pages::problem(
            StatusCode::CONFLICT,
            "This form was already used",
            "The secret was rolled and shown when it was first submitted. If you did not keep it, roll it again from the webhooks page.",
            false,
        ),
        Err(CommitError::Conflict) => not_found(),
        Err(_) => unavailable(),
    }
}

struct DeliveryRow {
    id: i64,
    event_id: String,
    event_type: String,
    state: String,
    attempt: i64,
    status: Option<i64>,
    error: Option<String>,
    at: String,
}

#[derive(Template)]
#[template(path = "dashboard/deliveries.html")]
struct Deliveries {
    f: Frame,
    endpoint: String,
    url: String,
    status: &'static str,
    rows: Vec<DeliveryRow>,
    can_manage: bool,
    /// The replay forms' id (replaying is not idempotent by its nature).
    form_id: String,
}

fn rfc3339(ms: i64) -> String {
    lendhub_domain::clock::from_unix_ms(ms)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// `GET /dashboard/webhooks/{id}/deliveries`: the endpoint's 100 latest
/// deliveries, each with its latest attempt.
pub async fn deliveries(
    State(state): State<PartnerState>,
    staff: Staff,
    Path(id): Path<String>,
    Query(q): Query<ListQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let owner = tenant(&staff, env);
    let Ok(records) = state.events.endpoints(&owner).await else {
        return unavailable();
    };
    let Some(endpoint) = records
        .into_iter()
        .map(|r| r.endpoint)
        .find(|e| e.id.as_str() == id)
    else {
        return not_found();
    };
    let Ok(rows) = state.jobs.endpoint_deliveries(&owner, &id, 100).await else {
        return unavailable();
    };
    screen(
        &state,
        StatusCode::OK,
        &Deliveries {
            f: Frame::of(&staff, env),
            endpoint: id,
            url: endpoint.url.clone(),
            status: endpoint.status.as_str(),
            rows: rows
                .into_iter()
                .map(|d| DeliveryRow {
                    id: d.id,
                    event_id: d.event_id,
                    event_type: d.event_type,
                    state: d.state,
                    attempt: d.attempt,
                    status: d.last_status,
                    error: d.last_error,
                    at: rfc3339(d.updated_at_ms),
                })
                .collect(),
            can_manage: staff.role.may(Action::ManageWebhooks),
            form_id: lendhub_system::random_token(18),
        },
    )
}

/// `POST /dashboard/webhooks/{id}/events/{event}/replay`: the event queued
/// to this endpoint once more, as `POST /events/{id}/replay` with its
/// `endpoint_id` does (a new delivery, signed afresh). The form's id is
/// recorded as an idempotency key, so a resubmitted form queues nothing.
pub async fn replay(
    State(state): State<PartnerState>,
    staff: Staff,
    Path((id, event_id)): Path<(String, String)>,
    Form(form): Form<ActionForm>,
) -> Response {
    use lendhub_store::{EventWrite, IdempotencyRecord, WriteSet};
    let env = match admitted(&staff, &form) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
    let Some(form_id) = form.form_id.filter(|f| (16..=64).contains(&f.len())) else {
        return forbidden("This form has expired. Go back, reload the page and try again.");
    };
    let owner = tenant(&staff, env);
    let (Ok(records), Ok(event), Ok(now)) = (
        state.events.endpoints(&owner).await,
        state.events.event(&owner, &event_id).await,
        state.now_for(&owner).await,
    ) else {
        return unavailable();
    };
    let (Some(endpoint), Some(_)) = (
        records.into_iter().find(|r| r.endpoint.id.as_str() == id),
        event,
    ) else {
        return not_found();
    };
    if endpoint.endpoint.status == EndpointStatus::Disabled {
        return super::pages::problem(
            StatusCode::CONFLICT,
            "This endpoint is disabled",
            "Re-enable it on the webhooks page first; then replay the event.",
            false,
        );
    }
    let at_ms = state.clock.now_ms();
    let mut writes = WriteSet::default();
    writes
        .push(EventWrite::QueueDeliveries {
            event_id: event_id.clone(),
            owner: owner.clone(),
            endpoint_ids: vec![id.clone()],
            at_ms: lendhub_domain::clock::unix_ms(now),
        })
        .push(audit_line(
            &staff,
            "event.replay",
            &format!("{event_id} to {id}"),
            env,
            at_ms,
        ));
    writes.idempotency = Some(IdempotencyRecord {
        owner: owner.clone(),
        key: format!("dashboard:{form_id}"),
        fingerprint: sha2::Sha256::digest(event_id.as_bytes()).into(),
        status: 202,
        body: Vec::new(),
        created_at_ms: lendhub_domain::clock::unix_ms(now),
    });
    let back = Redirect::to(&format!(
        "/dashboard/webhooks/{id}/deliveries?env={}",
        env.as_str()
    ))
    .into_response();
    match state.units.commit(writes).await {
        Ok(()) => {
            state.outbox_wake.notify_one();
            back
        }
        // The same form again: it was queued the first time.
        Err(CommitError::IdempotencyKeyTaken) => back,
        Err(_) => unavailable(),
    }
}

/// `POST /dashboard/webhooks/{id}/deliveries/{delivery}/retry`: a failed
/// delivery is due again now (on the owner's clock) and the outbox woken.
/// Idempotent: a delivery that is not failed (already retried) is left as it
/// is, and nothing is audited.
pub async fn retry(
    State(state): State<PartnerState>,
    staff: Staff,
    Path((id, delivery)): Path<(String, i64)>,
    Form(form): Form<ActionForm>,
) -> Response {
    use lendhub_store::{EventWrite, WriteSet};
    let env = match admitted(&staff, &form) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
    let owner = tenant(&staff, env);
    let (Ok(rows), Ok(now)) = (
        state.jobs.endpoint_deliveries(&owner, &id, 1_000).await,
        state.now_for(&owner).await,
    ) else {
        return unavailable();
    };
    let Some(found) = rows.into_iter().find(|d| d.id == delivery) else {
        return not_found();
    };
    let back = Redirect::to(&format!(
        "/dashboard/webhooks/{id}/deliveries?env={}",
        env.as_str()
    ))
    .into_response();
    if found.state != "failed" {
        return back;
    }
    let at_ms = state.clock.now_ms();
    let mut writes = WriteSet::default();
    writes
        .push(EventWrite::RetryDelivery {
            id: delivery,
            owner: owner.clone(),
            due_ms: lendhub_domain::clock::unix_ms(now),
            at_ms,
        })
        .push(audit_line(
            &staff,
            "webhook_delivery.retry",
            &format!("{id}/{}", found.event_id),
            env,
            at_ms,
        ));
    match state.units.commit(writes).await {
        Ok(()) => {
            state.outbox_wake.notify_one();
            back
        }
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
                    at: rfc3339(l.at_ms),
                    email: l.email,
                    action: l.action,
                    target: l.target,
                    environment: l.environment,
                })
                .collect(),
        },
    )
}
