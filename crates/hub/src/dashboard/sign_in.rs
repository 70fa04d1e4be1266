//! Signing in to the dashboard: lendhub's own identity provider, code flow
//! with PKCE, as any relying party; then a session for the partner the
//! person is staff of.

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::partner::dashboard::SESSION_MS;
use lendhub_store::DashboardSessionRecord;
use lendhub_system::random_token;
use serde::Deserialize;

use super::refusals;
use super::session::{self, SIGN_IN_COOKIE};
use crate::dashboard::state::DashboardState;
use crate::relying_party::RelyingParty;

/// `GET /dashboard/sign-in`: off to the identity provider.
pub async fn start(State(state): State<DashboardState>) -> Response {
    let Some(rp) = state.rp.as_ref() else {
        return refusals::unavailable();
    };
    let pending = RelyingParty::begin_plain();
    let mut response = Redirect::to(&rp.authorize_url(&pending)).into_response();
    if let Some(cookie) = session::sign_in_cookie(&state, &pending) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

#[derive(Deserialize)]
pub struct Callback {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

/// `GET /dashboard/callback`: the code back from the provider.
pub async fn callback(
    State(state): State<DashboardState>,
    headers: HeaderMap,
    Query(answer): Query<Callback>,
) -> Response {
    let Some(rp) = state.rp.as_ref() else {
        return refusals::unavailable();
    };
    let pending = session::pending(&state, &headers);
    let (Some(pending), Some(code), Some(returned)) = (pending, answer.code, answer.state) else {
        let why = if answer.error.is_some() {
            "The sign-in was cancelled or refused."
        } else {
            "This sign-in link is not this browser's, or it has expired."
        };
        return refusals::problem(StatusCode::BAD_REQUEST, "Sign-in did not finish", why, true);
    };
    use subtle::ConstantTimeEq;
    if !bool::from(returned.as_bytes().ct_eq(pending.state.as_bytes())) {
        return refusals::problem(
            StatusCode::BAD_REQUEST,
            "Sign-in did not finish",
            "This sign-in link is not this browser's, or it has expired.",
            true,
        );
    }
    let person = match rp.finish(&code, &pending).await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(error = %e, "a dashboard sign-in failed at the identity provider");
            return refusals::problem(
                StatusCode::BAD_GATEWAY,
                "Sign-in did not finish",
                "The identity provider did not confirm who you are. Try again.",
                true,
            );
        }
    };
    if super::operations::began_here(&pending) {
        return super::operations::signed_in(&state, &person).await;
    }
    if accept_invitations(&state, &person).await.is_err() {
        return refusals::unavailable();
    }
    let memberships = match state.dashboard.staff_of_user(&person.subject).await {
        Ok(m) => m,
        Err(_) => return refusals::unavailable(),
    };
    // The first partner by name; a person on several staffs switches at
    // /dashboard/partners (linked from the header).
    let Some(member) = memberships.into_iter().next() else {
        return refusals::problem(
            StatusCode::FORBIDDEN,
            "No dashboard for this account",
            "You are signed in, but no partner has added you to its staff. Ask an owner of your partner account to invite this e-mail address.",
            false,
        );
    };
    let token = random_token(32);
    let now = state.clock.now_ms();
    let record = DashboardSessionRecord {
        token_hash: session::hash(&token),
        user_id: member.staff.user_id.clone(),
        partner_client_id: member.staff.partner_client_id.clone(),
        csrf: random_token(24),
        created_at_ms: now,
        expires_at_ms: now.saturating_add(SESSION_MS),
    };
    if state
        .dashboard
        .create_dashboard_session(record)
        .await
        .is_err()
    {
        return refusals::unavailable();
    }
    let mut response = Redirect::to("/dashboard").into_response();
    let headers = response.headers_mut();
    if let Some(c) = session::session_cookie(&state, &token) {
        headers.append(header::SET_COOKIE, c);
    }
    if let Some(c) = session::cleared(&state, SIGN_IN_COOKIE) {
        headers.append(header::SET_COOKIE, c);
    }
    response
}

/// Makes the person staff of every partner whose open invitation names
/// their address, in the role it gives, and ends those invitations. Only a
/// verified address accepts one: the invitation was sent to the address,
/// not to whoever typed it into an account.
async fn accept_invitations(
    state: &DashboardState,
    person: &lendhub_domain::lending::journey::Applicant,
) -> Result<(), ()> {
    use lendhub_store::{StaffRecord, StaffWrite, WriteSet};
    if !person.email_verified {
        return Ok(());
    }
    let now = state.clock.now_ms();
    let email = person.email.trim().to_lowercase();
    let open = state
        .dashboard
        .open_invitations_for_email(&email, now)
        .await
        .map_err(drop)?;
    if open.is_empty() {
        return Ok(());
    }
    let member_of = state
        .dashboard
        .staff_of_user(&person.subject)
        .await
        .map_err(drop)?;
    for invitation in open {
        let mut writes = WriteSet::default();
        // Someone on the staff already keeps the role they hold: an
        // invitation adds people, it never changes a member's role.
        let already = member_of
            .iter()
            .any(|m| m.staff.partner_client_id == invitation.partner_client_id);
        if !already {
            writes.push(StaffWrite::Put(StaffRecord {
                partner_client_id: invitation.partner_client_id.clone(),
                user_id: person.subject.clone(),
                role: invitation.role.clone(),
                created_at_ms: now,
            }));
        }
        writes
            .push(StaffWrite::EndInvitation {
                id: invitation.id.clone(),
                partner_client_id: invitation.partner_client_id.clone(),
                accepted_by: Some(person.subject.clone()),
                at_ms: now,
            })
            .push(lendhub_store::AuditRecord {
                id: lendhub_system::new_hub_id::<lendhub_domain::ids::AuditId>(now.unsigned_abs())
                    .to_string(),
                partner_client_id: invitation.partner_client_id,
                user_id: person.subject.clone(),
                email: email.clone(),
                action: "staff.accept_invitation".into(),
                target: format!("{} as {}", invitation.id, invitation.role),
                environment: "live".into(),
                at_ms: now,
            });
        state.flows.commit(writes).await.map_err(drop)?;
    }
    Ok(())
}
