//! The owners' audit log: every action taken from the dashboard, newest
//! first.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::partner::dashboard::{Action, Environment};

use super::forms::moment;
use super::pages::{Frame, ListQuery, screen};
use super::refusals::{forbidden, unavailable};
use super::session::Staff;
use crate::dashboard::state::DashboardState;

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
    State(state): State<DashboardState>,
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
            f: Frame::of(&state, &staff, env),
            lines: lines
                .into_iter()
                .map(|l| AuditRow {
                    at: moment(l.at_ms),
                    email: l.email,
                    action: l.action,
                    target: l.target,
                    environment: l.environment,
                })
                .collect(),
        },
    )
}
