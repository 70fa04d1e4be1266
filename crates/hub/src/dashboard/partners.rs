//! A person on the staff of several partners chooses which one to work on.
//! A dashboard session is bound to one partner (every screen shows only its
//! data), so switching ends this session and starts one for the other
//! partner, with the role held there.

use askama::Template;
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::partner::dashboard::{Environment, Role, SESSION_MS};
use lendhub_store::DashboardSessionRecord;
use lendhub_system::random_token;
use serde::Deserialize;

use super::forms::EXPIRED;
use super::pages::{Frame, ListQuery, screen};
use super::refusals::{forbidden, not_found, unavailable};
use super::session::{self, Staff};
use crate::dashboard::state::DashboardState;

struct Choice {
    client_id: String,
    name: String,
    role: &'static str,
    current: bool,
}

#[derive(Template)]
#[template(path = "dashboard/partners.html")]
struct Partners {
    f: Frame,
    choices: Vec<Choice>,
}

/// `GET /dashboard/partners`
pub async fn list(
    State(state): State<DashboardState>,
    staff: Staff,
    Query(q): Query<ListQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let Ok(memberships) = state.dashboard.staff_of_user(&staff.session.user_id).await else {
        return unavailable();
    };
    screen(
        &state,
        StatusCode::OK,
        &Partners {
            f: Frame::of(&state, &staff, env),
            choices: memberships
                .into_iter()
                .map(|m| Choice {
                    current: m.staff.partner_client_id == staff.session.partner_client_id,
                    role: Role::parse(&m.staff.role).unwrap_or(Role::ReadOnly).label(),
                    client_id: m.staff.partner_client_id,
                    name: m.partner_name,
                })
                .collect(),
        },
    )
}

#[derive(Deserialize)]
pub struct SwitchForm {
    // Absent reads as empty, which no session's token matches: the form
    // is refused with the expired-form page, not a raw 422.
    #[serde(default)]
    csrf_token: String,
    env: Option<String>,
}

/// `POST /dashboard/partners/{client_id}/switch`: only to a partner whose
/// staff the person is (another is not found).
pub async fn switch(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(client_id): Path<String>,
    Form(form): Form<SwitchForm>,
) -> Response {
    if !staff.csrf_matches(&form.csrf_token) {
        return forbidden(EXPIRED);
    }
    let env = Environment::from_query(form.env.as_deref());
    let Ok(memberships) = state.dashboard.staff_of_user(&staff.session.user_id).await else {
        return unavailable();
    };
    if !memberships
        .iter()
        .any(|m| m.staff.partner_client_id == client_id)
    {
        return not_found();
    }
    let token = random_token(32);
    let now = state.clock.now_ms();
    let record = DashboardSessionRecord {
        token_hash: session::hash(&token),
        user_id: staff.session.user_id.clone(),
        partner_client_id: client_id,
        csrf: random_token(24),
        created_at_ms: now,
        expires_at_ms: now.saturating_add(SESSION_MS),
    };
    if state
        .dashboard
        .create_dashboard_session(record)
        .await
        .is_err()
        || state
            .dashboard
            .end_dashboard_session(&staff.session.token_hash, now)
            .await
            .is_err()
    {
        return unavailable();
    }
    let mut response = Redirect::to(&format!("/dashboard?env={}", env.as_str())).into_response();
    if let Some(c) = session::session_cookie(&state, &token) {
        response.headers_mut().append(header::SET_COOKIE, c);
    }
    response
}
