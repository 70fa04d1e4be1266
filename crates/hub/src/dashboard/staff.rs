//! Owners manage their partner's staff: invite a person by e-mail in a
//! role (they accept by signing in with that verified address within a
//! week), change a member's role, remove a member, withdraw an invitation.
//! A partner always keeps an owner. Each change commits with its audit
//! line; the operator's `lendhub partner staff` does the same from the CLI.

use askama::Template;
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::InvitationId;
use lendhub_domain::partner::dashboard::{Action, Environment, INVITATION_MS, Role};
use lendhub_store::{
    CommitError, InvitationRecord, MailRecord, StaffMember, StaffRecord, StaffWrite, WriteSet,
};
use serde::Deserialize;

use super::forms::{ActionForm, EXPIRED, admitted, audit_line, form_id, moment, once};
use super::pages::{Frame, ListQuery, screen, tenant};
use super::refusals::{forbidden, not_found, problem, unavailable};
use super::session::Staff;
use crate::dashboard::state::DashboardState;

const NOT_YOURS: &str = "Only owners manage the staff. Ask an owner of your partner account.";

struct MemberRow {
    user_id: String,
    email: String,
    role: &'static str,
    since: String,
    you: bool,
}

struct InvitationRow {
    id: String,
    email: String,
    role: &'static str,
    expires: String,
}

#[derive(Template)]
#[template(path = "dashboard/staff.html")]
struct StaffPage {
    f: Frame,
    members: Vec<MemberRow>,
    invitations: Vec<InvitationRow>,
    roles: Vec<(&'static str, &'static str)>,
    form_id: String,
}

fn role_of(raw: &str) -> Role {
    Role::parse(raw).unwrap_or(Role::ReadOnly)
}

/// `GET /dashboard/staff`
pub async fn list(
    State(state): State<DashboardState>,
    staff: Staff,
    Query(q): Query<ListQuery>,
) -> Response {
    if !staff.role.may(Action::ManageStaff) {
        return forbidden(NOT_YOURS);
    }
    let env = Environment::from_query(q.env.as_deref());
    let partner = &staff.session.partner_client_id;
    let now = state.clock.now_ms();
    let (Ok(members), Ok(invitations)) = (
        state.dashboard.staff_of_partner(partner).await,
        state
            .dashboard
            .open_invitations_of_partner(partner, now)
            .await,
    ) else {
        return unavailable();
    };
    screen(
        &state,
        StatusCode::OK,
        &StaffPage {
            f: Frame::of(&state, &staff, env),
            members: members
                .iter()
                .map(|m| MemberRow {
                    user_id: m.staff.user_id.clone(),
                    email: m.email.clone(),
                    role: role_of(&m.staff.role).as_str(),
                    since: moment(m.staff.created_at_ms),
                    you: m.staff.user_id == staff.session.user_id,
                })
                .collect(),
            invitations: invitations
                .iter()
                .map(|i| InvitationRow {
                    id: i.id.clone(),
                    email: i.email.clone(),
                    role: role_of(&i.role).as_str(),
                    expires: moment(i.expires_at_ms),
                })
                .collect(),
            roles: Role::ALL.iter().map(|r| (r.as_str(), r.label())).collect(),
            form_id: form_id(),
        },
    )
}

#[derive(Deserialize)]
pub struct StaffForm {
    // Absent reads as empty, which no session's token matches: the form
    // is refused with the expired-form page, not a raw 422.
    #[serde(default)]
    csrf_token: String,
    env: Option<String>,
    form_id: Option<String>,
    email: Option<String>,
    role: Option<String>,
}

impl StaffForm {
    fn action(&self) -> ActionForm {
        ActionForm {
            csrf_token: self.csrf_token.clone(),
            env: self.env.clone(),
            form_id: self.form_id.clone(),
        }
    }

    fn role(&self) -> Option<Role> {
        self.role.as_deref().and_then(Role::parse)
    }
}

/// The checks an owner's form passes first (CSRF, then the role).
fn owner_form(staff: &Staff, form: &StaffForm) -> Result<Environment, &'static str> {
    admitted(staff, &form.action(), Action::ManageStaff, NOT_YOURS)
}

/// Commits a staff change and goes back to the staff page.
async fn committed(state: &DashboardState, writes: WriteSet, env: Environment) -> Response {
    match state.flows.commit(writes).await {
        Ok(()) => back(env),
        Err(_) => unavailable(),
    }
}

fn back(env: Environment) -> Response {
    Redirect::to(&format!("/dashboard/staff?env={}", env.as_str())).into_response()
}

fn invalid(message: &str) -> Response {
    problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "That cannot be done",
        message,
        false,
    )
}

/// `POST /dashboard/staff/invite`: an invitation for the address in the
/// role, and the mail that tells its person, in one commit with the audit
/// line. Whether the address has a lendhub sign-in is neither checked nor
/// shown: the invitation waits for whoever proves the address.
pub async fn invite(
    State(state): State<DashboardState>,
    staff: Staff,
    Form(form): Form<StaffForm>,
) -> Response {
    let action = form.action();
    let env = match admitted(&staff, &action, Action::ManageStaff, NOT_YOURS) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
    let email = form.email.as_deref().unwrap_or("").trim().to_lowercase();
    if !lendhub_domain::public::enquiry::is_email(&email) {
        return invalid("Give the e-mail address the person signs in to lendhub with.");
    }
    let Some(role) = form.role() else {
        return invalid("Choose one of the roles.");
    };
    // A member's role is changed on their row, never by an invitation (which
    // could otherwise demote the only owner when they next sign in).
    let Ok(members) = state
        .dashboard
        .staff_of_partner(&staff.session.partner_client_id)
        .await
    else {
        return unavailable();
    };
    if members.iter().any(|m| m.email.eq_ignore_ascii_case(&email)) {
        return invalid(
            "That address is on the staff already: change their role in the list instead.",
        );
    }
    let now = state.clock.now_ms();
    let expires = now.saturating_add(INVITATION_MS);
    let id = lendhub_system::new_hub_id::<InvitationId>(now.unsigned_abs()).to_string();
    let Ok(owner_clock) = state.flows.now_for(&tenant(&staff, env)).await else {
        return unavailable();
    };
    let Some(record) = once(&action, &tenant(&staff, env), &email, owner_clock) else {
        return forbidden(EXPIRED);
    };
    let mut writes = WriteSet::default();
    writes
        .push(StaffWrite::Invite {
            invitation: InvitationRecord {
                id: id.clone(),
                partner_client_id: staff.session.partner_client_id.clone(),
                email: email.clone(),
                role: role.as_str().to_owned(),
                invited_by: staff.session.user_id.clone(),
                created_at_ms: now,
                expires_at_ms: expires,
            },
            mail: invitation_mail(&state, &staff, &id, &email, role, expires),
        })
        .push(audit_line(
            &staff,
            "staff.invite",
            &format!("{email} as {}", role.as_str()),
            env,
            now,
        ));
    writes.idempotency = Some(record);
    match state.flows.commit(writes).await {
        // The mail worker's next poll (a second) sends it.
        Ok(()) => back(env),
        // The same form again: the invitation was made the first time.
        Err(CommitError::IdempotencyKeyTaken) => back(env),
        Err(_) => unavailable(),
    }
}

fn invitation_mail(
    state: &DashboardState,
    staff: &Staff,
    id: &str,
    email: &str,
    role: Role,
    expires_ms: i64,
) -> MailRecord {
    let partner = &staff.member.partner_name;
    MailRecord {
        id: format!("mail_{id}"),
        enquiry_id: None,
        recipient: email.to_owned(),
        subject: format!("You are invited to {partner}'s lendhub dashboard"),
        body: format!(
            "{inviter} has invited you to the lendhub partner dashboard of {partner}, \
             as {role}.\n\nTo accept, sign in at {base}/dashboard with this e-mail \
             address ({email}) before {until}. If you have no lendhub sign-in for it, \
             ask {inviter} to arrange one.\n\nIf you did not expect this, ignore this \
             e-mail: nothing happens unless you sign in.\n",
            inviter = staff.member.email,
            role = role.label(),
            base = state.links.urls.base,
            until = moment(expires_ms),
        ),
        due_ms: state.clock.now_ms(),
    }
}

/// The caller's partner's member `user_id`, and how many owners it has.
async fn member(
    state: &DashboardState,
    staff: &Staff,
    user_id: &str,
) -> Result<(StaffMember, usize), Response> {
    let Ok(members) = state
        .dashboard
        .staff_of_partner(&staff.session.partner_client_id)
        .await
    else {
        return Err(unavailable());
    };
    let owners = members
        .iter()
        .filter(|m| role_of(&m.staff.role) == Role::Owner)
        .count();
    members
        .into_iter()
        .find(|m| m.staff.user_id == user_id)
        .map(|m| (m, owners))
        .ok_or_else(not_found)
}

fn last_owner() -> Response {
    problem(
        StatusCode::CONFLICT,
        "A partner keeps an owner",
        "This is the partner's only owner. Make someone else an owner first.",
        false,
    )
}

/// `POST /dashboard/staff/{user_id}/role`: idempotent (the same role again
/// changes nothing and is not audited).
pub async fn change_role(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(user_id): Path<String>,
    Form(form): Form<StaffForm>,
) -> Response {
    let env = match owner_form(&staff, &form) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
    let Some(role) = form.role() else {
        return invalid("Choose one of the roles.");
    };
    let (m, owners) = match member(&state, &staff, &user_id).await {
        Ok(found) => found,
        Err(r) => return r,
    };
    let was = role_of(&m.staff.role);
    if was == role {
        return back(env);
    }
    if was == Role::Owner && owners <= 1 {
        return last_owner();
    }
    let now = state.clock.now_ms();
    let mut writes = WriteSet::default();
    writes
        .push(StaffWrite::Put(StaffRecord {
            role: role.as_str().to_owned(),
            ..m.staff
        }))
        .push(audit_line(
            &staff,
            "staff.change_role",
            &format!("{}: {} to {}", m.email, was.as_str(), role.as_str()),
            env,
            now,
        ));
    committed(&state, writes, env).await
}

/// `POST /dashboard/staff/{user_id}/remove`: no longer staff; their
/// dashboard sessions end at once. Idempotent: someone already gone is not
/// found.
pub async fn remove(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(user_id): Path<String>,
    Form(form): Form<StaffForm>,
) -> Response {
    let env = match owner_form(&staff, &form) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
    let (m, owners) = match member(&state, &staff, &user_id).await {
        Ok(found) => found,
        Err(r) => return r,
    };
    if role_of(&m.staff.role) == Role::Owner && owners <= 1 {
        return last_owner();
    }
    let now = state.clock.now_ms();
    let mut writes = WriteSet::default();
    writes
        .push(StaffWrite::Remove {
            partner_client_id: m.staff.partner_client_id.clone(),
            user_id: m.staff.user_id.clone(),
            at_ms: now,
        })
        .push(audit_line(&staff, "staff.remove", &m.email, env, now));
    committed(&state, writes, env).await
}

/// `POST /dashboard/staff/invitations/{id}/withdraw`: the invitation can no
/// longer be accepted. Idempotent.
pub async fn withdraw(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Form(form): Form<StaffForm>,
) -> Response {
    let env = match owner_form(&staff, &form) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
    let partner = &staff.session.partner_client_id;
    let now = state.clock.now_ms();
    let Ok(open) = state
        .dashboard
        .open_invitations_of_partner(partner, now)
        .await
    else {
        return unavailable();
    };
    let Some(invitation) = open.into_iter().find(|i| i.id == id) else {
        return back(env);
    };
    let mut writes = WriteSet::default();
    writes
        .push(StaffWrite::EndInvitation {
            id: invitation.id.clone(),
            partner_client_id: partner.clone(),
            accepted_by: None,
            at_ms: now,
        })
        .push(audit_line(
            &staff,
            "staff.withdraw_invitation",
            &invitation.email,
            env,
            now,
        ));
    committed(&state, writes, env).await
}
