//! The dashboard's credentials: the partner's secret API keys of the
//! environment on screen (create, roll with an overlap for the old key,
//! revoke; a key shown once), its own OAuth client, whose secret is rolled
//! the same way, and its additional OAuth clients (made with some of its
//! scopes, rolled, revoked). Owners and developers change them; every role sees the
//! list, never a secret. Each change commits with its audit line, and this
//! instance forgets what it remembered of the partner at once (others
//! within the directory's sync interval).

mod client_secret;
mod create;
mod oauth_clients;
mod revoke;
mod roll;

use askama::Template;
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::partner::credentials::api_key_id;
use lendhub_domain::partner::dashboard::{Action, Environment};
use lendhub_domain::partner::scope::PartnerScopes;
use lendhub_store::{ApiKeyRecord, CommitError, OAuthClientRecord, PartnerClientRecord, WriteSet};
use serde::Deserialize;

use super::forms::{ActionForm, EXPIRED, Refused, admitted, audit_line, form_id, moment, once};
use super::pages::{Frame, ListQuery, screen, tenant};
use super::refusals::{forbidden, unavailable};
use super::session::Staff;
use crate::dashboard::state::DashboardState;

pub use client_secret::{
    end_previous_oauth_client_secret, end_previous_secret, roll_client_secret,
    roll_oauth_client_secret,
};
pub use create::create;
pub use oauth_clients::{create_oauth_client, revoke_oauth_client};
pub use revoke::revoke;
pub use roll::roll;

const NOT_YOURS: &str = "Your role does not manage credentials. Ask an owner or a developer.";

/// The overlaps a roll offers, in hours: the old key or secret keeps
/// working this long beside the new one.
const OVERLAPS: [(u32, &str); 4] = [
    (24, "for 24 hours"),
    (1, "for 1 hour"),
    (168, "for 7 days"),
    (0, "no: it stops now"),
];

struct KeyRow {
    id: String,
    scopes: String,
    created: String,
    /// `active`, `expiring` (rolled, in its overlap) or `revoked`.
    state: &'static str,
    until: String,
}

fn key_row(k: &ApiKeyRecord, now_ms: i64) -> KeyRow {
    KeyRow {
        id: api_key_id(&k.selector),
        scopes: k.scopes.clone(),
        created: moment(k.created_at_ms),
        state: match k.expires_at_ms {
            None => "active",
            Some(at) if now_ms < at => "expiring",
            Some(_) => "revoked",
        },
        until: k.expires_at_ms.map(moment).unwrap_or_default(),
    }
}

struct ClientRow {
    id: String,
    name: String,
    scopes: String,
    created: String,
    /// When the secret a roll replaced stops working, if it still works.
    previous_until: Option<String>,
    /// When it was revoked.
    revoked: Option<String>,
}

fn client_row(c: &OAuthClientRecord, now_ms: i64) -> ClientRow {
    ClientRow {
        id: c.client_id.clone(),
        name: c.name.clone(),
        scopes: c.scopes.clone(),
        created: moment(c.created_at_ms),
        previous_until: c
            .previous_secret_at(now_ms)
            .and(c.previous_secret_expires_at_ms)
            .map(moment),
        revoked: c.revoked_at_ms.map(moment),
    }
}

#[derive(Template)]
#[template(path = "dashboard/credentials.html")]
struct Credentials {
    f: Frame,
    client_id: String,
    previous_until: Option<String>,
    held_scopes: String,
    clients: Vec<ClientRow>,
    keys: Vec<KeyRow>,
    can_manage: bool,
    overlaps: &'static [(u32, &'static str)],
    form_id: String,
}

/// `GET /dashboard/credentials`
pub async fn list(
    State(state): State<DashboardState>,
    staff: Staff,
    Query(q): Query<ListQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let client_id = &staff.session.partner_client_id;
    let (Ok(Some(client)), Ok(keys), Ok(clients)) = (
        state.partners.partner_client(client_id).await,
        state.partners.list_api_keys(client_id).await,
        state.partners.list_oauth_clients(client_id).await,
    ) else {
        return unavailable();
    };
    let now_ms = state.clock.now_ms();
    let clients = clients
        .iter()
        .rev()
        .map(|c| client_row(c, now_ms))
        .collect();
    let mut keys: Vec<_> = keys
        .iter()
        .filter(|k| k.environment == env.credentials())
        .map(|k| key_row(k, now_ms))
        .collect();
    keys.reverse();
    screen(
        &state,
        StatusCode::OK,
        &Credentials {
            f: Frame::of(&state, &staff, env),
            previous_until: client
                .previous_secret_at(now_ms)
                .and(client.previous_secret_expires_at_ms)
                .map(moment),
            held_scopes: client.scopes.clone(),
            client_id: client.client_id,
            clients,
            keys,
            can_manage: staff.role.may(Action::ManageCredentials),
            overlaps: &OVERLAPS,
            form_id: form_id(),
        },
    )
}

/// A credential form: the shared fields and, for a roll, how long the old
/// credential keeps working; for a new key, its scopes.
#[derive(Deserialize)]
pub struct CredentialForm {
    // Absent reads as empty, which no session's token matches: the form
    // is refused with the expired-form page, not a raw 422.
    #[serde(default)]
    csrf_token: String,
    env: Option<String>,
    form_id: Option<String>,
    overlap_hours: Option<String>,
    scopes: Option<String>,
    /// A new OAuth client's name.
    name: Option<String>,
}

impl CredentialForm {
    fn action(&self) -> ActionForm {
        ActionForm {
            csrf_token: self.csrf_token.clone(),
            env: self.env.clone(),
            form_id: self.form_id.clone(),
        }
    }

    /// One of the offered overlaps, in milliseconds.
    fn overlap_ms(&self) -> Option<i64> {
        let hours: u32 = self.overlap_hours.as_deref()?.parse().ok()?;
        OVERLAPS
            .iter()
            .any(|(h, _)| *h == hours)
            .then(|| i64::from(hours) * 3_600_000)
    }
}

#[derive(Template)]
#[template(path = "dashboard/shown_once.html")]
struct ShownOnce {
    f: Frame,
    heading: String,
    /// What the value is, e.g. "API key".
    what: &'static str,
    value: String,
    note: String,
}

/// What every credential action starts from: the form admitted (CSRF,
/// role), the partner's client as stored, and its owner's clock for the
/// one-time form's record.
struct Target {
    env: Environment,
    client: PartnerClientRecord,
    form: ActionForm,
    now: time::OffsetDateTime,
}

async fn target(
    state: &DashboardState,
    staff: &Staff,
    form: &CredentialForm,
) -> Result<Target, Refused> {
    let action = form.action();
    let env = admitted(staff, &action, Action::ManageCredentials, NOT_YOURS)
        .map_err(Refused::Forbidden)?;
    let (Ok(Some(client)), Ok(now)) = (
        state
            .partners
            .partner_client(&staff.session.partner_client_id)
            .await,
        state.flows.now_for(&tenant(staff, env)).await,
    ) else {
        return Err(Refused::Unavailable);
    };
    Ok(Target {
        env,
        client,
        form: action,
        now,
    })
}

/// One of the partner's keys of the environment on screen, by its id;
/// another partner's, another environment's or no key is 404.
async fn own_key(
    state: &DashboardState,
    staff: &Staff,
    env: Environment,
    id: &str,
) -> Result<ApiKeyRecord, Refused> {
    let selector = crate::partner::api_keys::selector_of(id).map_err(|_| Refused::NotFound)?;
    match state.partners.api_key(&selector).await {
        Ok(Some(k))
            if k.client_id == staff.session.partner_client_id
                && k.environment == env.credentials() =>
        {
            Ok(k)
        }
        Ok(_) => Err(Refused::NotFound),
        Err(_) => Err(Refused::Unavailable),
    }
}

/// The OAuth client `client_id` of the partner: its own (`None`), or one of
/// its additional clients that is not revoked; another partner's, a
/// revoked one or none is 404.
async fn own_client(
    state: &DashboardState,
    partner: &PartnerClientRecord,
    client_id: &str,
) -> Result<Option<OAuthClientRecord>, Refused> {
    if client_id == partner.client_id {
        return Ok(None);
    }
    match state.partners.oauth_client(client_id).await {
        Ok(Some(c)) if c.partner_client_id == partner.client_id && c.revoked_at_ms.is_none() => {
            Ok(Some(c))
        }
        Ok(_) => Err(Refused::NotFound),
        Err(_) => Err(Refused::Unavailable),
    }
}

/// Commits a credential change; this instance forgets what it remembered
/// of partners, so the change holds here from the next request.
async fn commit(state: &DashboardState, writes: WriteSet) -> Result<(), CommitError> {
    state.flows.commit(writes).await?;
    state.directory.forget();
    Ok(())
}

/// Commits a change that makes a credential, with the one-time form's
/// record, and shows the credential on the answer; a form used already
/// makes nothing and shows nothing.
async fn make_once(
    state: &DashboardState,
    mut writes: WriteSet,
    record: lendhub_store::IdempotencyRecord,
    shown: ShownOnce,
) -> Response {
    writes.idempotency = Some(record);
    match commit(state, writes).await {
        Ok(()) => screen(state, StatusCode::OK, &shown),
        Err(CommitError::IdempotencyKeyTaken) => used_already(),
        Err(_) => unavailable(),
    }
}

/// Commits a change that makes nothing to show, and goes back to the list.
async fn change(state: &DashboardState, writes: WriteSet, env: Environment) -> Response {
    match commit(state, writes).await {
        Ok(()) => back(env),
        Err(_) => unavailable(),
    }
}

fn back(env: Environment) -> Response {
    Redirect::to(&format!("/dashboard/credentials?env={}", env.as_str())).into_response()
}

fn used_already() -> Response {
    crate::dashboard::refusals::problem(
        StatusCode::CONFLICT,
        "This form was already used",
        "It was carried out, and anything new was shown, when it was first submitted. If you did not keep it, roll again from the credentials page.",
        false,
    )
}

/// The scopes a form names: `None` when blank (every scope the partner
/// holds); what was written, for the 422 page, when it is not scopes.
fn scopes_asked(form: &CredentialForm) -> Result<Option<PartnerScopes>, &str> {
    match form.scopes.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(raw) => match PartnerScopes::parse(raw) {
            Ok(s) if !s.is_empty() => Ok(Some(s)),
            _ => Err(raw),
        },
    }
}

fn bad_scopes(raw: &str) -> Response {
    crate::dashboard::refusals::problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "Those scopes cannot be given to a credential",
        &format!(
            "\u{201c}{raw}\u{201d} is not a scope your partner account holds. Leave the field blank for every scope it holds, or name some of them, separated by spaces."
        ),
        false,
    )
}
