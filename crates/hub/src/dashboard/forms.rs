//! What every state-changing dashboard form shares: its hidden fields (the
//! session's CSRF token, the environment, a one-time form id), the checks it
//! passes first, the audit line committed with it, and the idempotency
//! record that makes a resubmitted one-time form change nothing.

use axum::response::Response;
use lendhub_domain::ids::AuditId;
use lendhub_domain::partner::dashboard::{Action, Environment};
use lendhub_domain::tenant::Tenant;
use lendhub_store::{AuditRecord, IdempotencyRecord};
use lendhub_system::new_hub_id;
use serde::Deserialize;
use sha2::Digest;

use super::refusals::{forbidden, not_found, unavailable};
use super::session::Staff;

pub(super) const EXPIRED: &str = "This form has expired. Go back, reload the page and try again.";

#[derive(Deserialize)]
pub struct ActionForm {
    // Absent reads as empty, which no session's token matches: the form
    // is refused with the expired-form page, not a raw 422.
    #[serde(default)]
    pub(super) csrf_token: String,
    pub(super) env: Option<String>,
    pub(super) form_id: Option<String>,
}

/// A fresh id for the one-time forms of a page.
pub(super) fn form_id() -> String {
    lendhub_system::random_token(18)
}

/// The checks every form passes first, its CSRF token then the role; the
/// refusal says which. `why` is what a role that may not `action` is told.
pub(super) fn admitted(
    staff: &Staff,
    form: &ActionForm,
    action: Action,
    why: &'static str,
) -> Result<Environment, &'static str> {
    if !staff.csrf_matches(&form.csrf_token) {
        return Err(EXPIRED);
    }
    if !staff.role.may(action) {
        return Err(why);
    }
    Ok(Environment::from_query(form.env.as_deref()))
}

pub(super) fn audit_line(
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

/// The idempotency record of a one-time form (rolling a secret, making a
/// key, replaying): its `form_id` as the key, for `owner`, on the owner's
/// clock; none when the form carries no valid id. Only that the form was
/// used is kept, never what it showed.
pub(super) fn once(
    form: &ActionForm,
    owner: &Tenant,
    subject: &str,
    now: time::OffsetDateTime,
) -> Option<IdempotencyRecord> {
    let form_id = form
        .form_id
        .as_deref()
        .filter(|f| (16..=64).contains(&f.len()))?;
    Some(IdempotencyRecord {
        owner: owner.clone(),
        key: format!("dashboard:{form_id}"),
        fingerprint: sha2::Sha256::digest(subject.as_bytes()).into(),
        status: 200,
        body: Vec::new(),
        created_at_ms: lendhub_domain::clock::unix_ms(now),
    })
}

/// A moment as staff read it: "28 December 2026 at 16:29 GMT".
pub(super) fn moment(ms: i64) -> String {
    lendhub_domain::people::moment(lendhub_domain::clock::from_unix_ms(ms))
}

/// Why an action stops before it starts.
pub(super) enum Refused {
    Forbidden(&'static str),
    NotFound,
    Unavailable,
}

impl Refused {
    pub(super) fn page(self) -> Response {
        match self {
            Refused::Forbidden(why) => forbidden(why),
            Refused::NotFound => not_found(),
            Refused::Unavailable => unavailable(),
        }
    }
}
