//! `GET`/`POST /dashboard/branding` (issue #51 item 2): the partner's
//! display name, logo and accent colour, as its customers see them on the
//! application and repayment pages and in lendhub's e-mails to them.
//! Owners and developers change them; every change is audited.

use askama::Template;
use axum::extract::{Multipart, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::partner::branding::{Branding, BrandingError, MAX_LOGO_BYTES};
use lendhub_domain::partner::dashboard::{Action, Environment};
use lendhub_store::WriteSet;
use serde::Deserialize;

use super::forms::{ActionForm, admitted, audit_line};
use super::pages::{Frame, screen};
use super::refusals::{forbidden, problem, unavailable};
use super::session::Staff;
use crate::dashboard::state::DashboardState;
use crate::flows::branding::{BrandForm, LOGO_PREFIX, change, of_partner};

const NOT_YOURS: &str =
    "Only owners and developers change the branding. Ask an owner of your partner account.";

/// The largest form read: the logo and a few short fields.
pub const MAX_FORM_BYTES: usize = MAX_LOGO_BYTES + 16 * 1024;

#[derive(Template)]
#[template(path = "dashboard/branding.html")]
struct BrandingPage {
    f: Frame,
    may: bool,
    saved: bool,
    errors: Vec<String>,
    display_name: String,
    accent: String,
    logo: Option<String>,
}

#[derive(Deserialize, Default)]
pub struct BrandingQuery {
    env: Option<String>,
    saved: Option<String>,
}

fn page(
    state: &DashboardState,
    staff: &Staff,
    env: Environment,
    current: &Option<Branding>,
    typed: Option<(&str, &str)>,
    errors: Vec<String>,
    saved: bool,
) -> Response {
    let current = current.clone().unwrap_or_default();
    let (display_name, accent) = typed.map_or_else(
        || {
            (
                current.display_name.clone().unwrap_or_default(),
                current.accent.clone().unwrap_or_default(),
            )
        },
        |(n, a)| (n.to_owned(), a.to_owned()),
    );
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    screen(
        state,
        status,
        &BrandingPage {
            f: Frame::of(state, staff, env),
            may: staff.role.may(Action::ManageBranding),
            saved,
            errors,
            display_name,
            accent,
            logo: current.logo.map(|l| format!("{LOGO_PREFIX}{}", l.sha256)),
        },
    )
}

pub async fn show(
    State(state): State<DashboardState>,
    staff: Staff,
    Query(q): Query<BrandingQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let Ok(current) = of_partner(&state.flows, &staff.session.partner_client_id).await else {
        return unavailable();
    };
    page(
        &state,
        &staff,
        env,
        &current,
        None,
        Vec::new(),
        q.saved.is_some(),
    )
}

/// The form's fields, as sent.
#[derive(Default)]
struct Fields {
    csrf_token: String,
    env: Option<String>,
    display_name: String,
    accent: String,
    logo: Option<Vec<u8>>,
    remove_logo: bool,
}

/// Reads the multipart form; `Err` when it is not one, or is larger than
/// the route's limit (only a logo can make it so).
async fn fields(mut form: Multipart) -> Result<Fields, Response> {
    let too_large = || {
        problem(
            StatusCode::PAYLOAD_TOO_LARGE,
            "The logo is too large",
            &BrandingError::LogoTooLarge.to_string(),
            false,
        )
    };
    let mut out = Fields::default();
    loop {
        let field = match form.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => return Ok(out),
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => return Err(too_large()),
            Err(_) => return Err(malformed()),
        };
        let name = field.name().unwrap_or_default().to_owned();
        let bytes = match field.bytes().await {
            Ok(b) => b,
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => return Err(too_large()),
            Err(_) => return Err(malformed()),
        };
        let text = || String::from_utf8_lossy(&bytes).into_owned();
        match name.as_str() {
            "csrf_token" => out.csrf_token = text(),
            "env" => out.env = Some(text()),
            "display_name" => out.display_name = text(),
            "accent" => out.accent = text(),
            "remove_logo" => out.remove_logo = bytes.as_ref() == b"yes",
            "logo" => out.logo = Some(bytes.to_vec()),
            _ => {}
        }
    }
}

fn malformed() -> Response {
    problem(
        StatusCode::BAD_REQUEST,
        "That form could not be read",
        "Go back, reload the page and try again.",
        false,
    )
}

pub async fn save(State(state): State<DashboardState>, staff: Staff, form: Multipart) -> Response {
    let fields = match fields(form).await {
        Ok(f) => f,
        Err(page) => return page,
    };
    let checked = ActionForm {
        csrf_token: fields.csrf_token.clone(),
        env: fields.env.clone(),
        form_id: None,
    };
    let env = match admitted(&staff, &checked, Action::ManageBranding, NOT_YOURS) {
        Ok(env) => env,
        Err(why) => return forbidden(why),
    };
    let partner = &staff.session.partner_client_id;
    let Ok(current) = of_partner(&state.flows, partner).await else {
        return unavailable();
    };
    let now = state.clock.now_ms();
    let form = BrandForm {
        display_name: &fields.display_name,
        accent: &fields.accent,
        logo: fields.logo.as_deref(),
        remove_logo: fields.remove_logo,
    };
    match change(partner, current.clone(), &form, now) {
        Ok((branding, write)) => {
            let mut writes = WriteSet::default();
            writes.push(write).push(audit_line(
                &staff,
                "branding.update",
                branding
                    .display_name
                    .as_deref()
                    .unwrap_or("(no display name)"),
                env,
                now,
            ));
            match state.flows.commit(writes).await {
                Ok(()) => {
                    Redirect::to(&format!("/dashboard/branding?env={}&saved=1", env.as_str()))
                        .into_response()
                }
                Err(_) => unavailable(),
            }
        }
        Err(errors) => page(
            &state,
            &staff,
            env,
            &current,
            Some((&fields.display_name, &fields.accent)),
            errors.iter().map(ToString::to_string).collect(),
            false,
        ),
    }
}
