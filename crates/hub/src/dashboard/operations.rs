//! The lender's operations console (issue #47 item 6): the reconciliation
//! items the daily run found, open ones first; and the credit models in
//! force, with the challenger's shadow scores against the champion's
//! (issue #48 item 3). Its people are the lender's
//! operators (config `lender.operators`, their addresses), who sign in
//! through lendhub's identity provider as partner staff do, through the
//! same callback (the sign-in's `state` says which door it came in by),
//! and hold a session of their own, bound to no partner. The address is
//! checked again on every request, so removing it from the configuration
//! ends the person's access at the next restart.

use askama::Template;
use axum::Form;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::credit_model::{ModelRef, registry};
use lendhub_domain::ledger::reconciliation::{Item, Resolution};
use lendhub_domain::lending::journey::{Applicant, PendingSignIn};
use lendhub_domain::partner::dashboard::SESSION_MS;
use lendhub_store::OperatorSessionRecord;
use lendhub_system::random_token;

use super::refusals;
use super::session::{self, SIGN_IN_COOKIE};
use crate::dashboard::state::DashboardState;
use crate::relying_party::RelyingParty;

pub const COOKIE: &str = "lendhub_ops";
/// The prefix of a sign-in's `state` that began at the console's door.
const DOOR: &str = "operations";
/// At most this many items on the page: open ones come first, and a
/// longer history is `lendhub reconcile --items --json`'s.
const SHOWN: i64 = 200;

/// Whether `pending` began at the console's door.
pub fn began_here(pending: &PendingSignIn) -> bool {
    pending
        .state
        .strip_prefix(DOOR)
        .is_some_and(|rest| rest.starts_with('.'))
}

fn is_operator(state: &DashboardState, email: &str) -> bool {
    let email = email.trim().to_lowercase();
    state.operators.contains(&email)
}

/// The console's session cookie (`None` removes it).
fn cookie(state: &DashboardState, token: Option<&str>) -> Option<header::HeaderValue> {
    session::cookie_at(state, COOKIE, "/dashboard/operations", token)
}

/// `GET /dashboard/operations/sign-in`: off to the identity provider.
pub async fn start(State(state): State<DashboardState>) -> Response {
    let Some(rp) = state.rp.as_ref() else {
        return refusals::unavailable();
    };
    let pending = RelyingParty::begin(DOOR);
    let mut response = Redirect::to(&rp.authorize_url(&pending)).into_response();
    if let Some(cookie) = session::sign_in_cookie(&state, &pending) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// The dashboard's callback, for a sign-in that began at the console's
/// door: a session for an operator, a refusal for anyone else.
pub async fn signed_in(state: &DashboardState, person: &Applicant) -> Response {
    if !person.email_verified || !is_operator(state, &person.email) {
        return refusals::problem(
            StatusCode::FORBIDDEN,
            "Not a lender operator",
            "You are signed in, but this address is not one of the lender's operators. Partner staff sign in at /dashboard.",
            false,
        );
    }
    let token = random_token(32);
    let now = state.clock.now_ms();
    let record = OperatorSessionRecord {
        token_hash: session::hash(&token),
        user_id: person.subject.clone(),
        csrf: random_token(24),
        created_at_ms: now,
        expires_at_ms: now.saturating_add(SESSION_MS),
    };
    if state
        .dashboard
        .create_operator_session(record)
        .await
        .is_err()
    {
        return refusals::unavailable();
    }
    let mut response = Redirect::to("/dashboard/operations").into_response();
    let headers = response.headers_mut();
    if let Some(c) = cookie(state, Some(&token)) {
        headers.append(header::SET_COOKIE, c);
    }
    if let Some(c) = session::cleared(state, SIGN_IN_COOKIE) {
        headers.append(header::SET_COOKIE, c);
    }
    response
}

/// A signed-in lender operator.
pub struct Operator {
    session: OperatorSessionRecord,
    email: String,
}

pub enum NotOperator {
    SignIn,
    Unavailable,
}

impl IntoResponse for NotOperator {
    fn into_response(self) -> Response {
        match self {
            NotOperator::SignIn => Redirect::to("/dashboard/operations/sign-in").into_response(),
            NotOperator::Unavailable => refusals::unavailable(),
        }
    }
}

impl FromRequestParts<DashboardState> for Operator {
    type Rejection = NotOperator;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &DashboardState,
    ) -> Result<Self, Self::Rejection> {
        let token =
            lendhub_http::headers::cookie(&parts.headers, COOKIE).ok_or(NotOperator::SignIn)?;
        let (session, email) = state
            .dashboard
            .operator_session(&session::hash(token), state.clock.now_ms())
            .await
            .map_err(|_| NotOperator::Unavailable)?
            .ok_or(NotOperator::SignIn)?;
        if !is_operator(state, &email) {
            return Err(NotOperator::SignIn);
        }
        Ok(Operator { session, email })
    }
}

struct Row {
    date: String,
    environment: &'static str,
    account: &'static str,
    end_to_end_id: String,
    mismatch: &'static str,
    bank: String,
    ledger: String,
    resolution: String,
    open: bool,
}

impl Row {
    fn of(i: &Item) -> Self {
        let pounds = |m: Option<lendhub_domain::money::Money>| {
            m.map_or_else(|| "—".to_owned(), lendhub_domain::people::money)
        };
        Self {
            date: lendhub_domain::people::date(i.date),
            environment: i.environment.as_str(),
            account: i.account.as_str(),
            end_to_end_id: i.end_to_end_id.clone(),
            mismatch: i.mismatch.as_str(),
            bank: pounds(i.bank_amount),
            ledger: pounds(i.ledger_amount),
            resolution: match &i.resolution {
                Resolution::Posted { what } => format!("posted {what}"),
                Resolution::Suspense { transfer_id } => format!("held in suspense ({transfer_id})"),
                Resolution::Open => "open".to_owned(),
            },
            open: i.resolution == Resolution::Open,
        }
    }
}

/// One model's side of the champion-challenger comparison, as shown.
struct SideRow {
    role: &'static str,
    model: String,
    approved: u32,
    referred: u32,
    declined: u32,
    approval_rate: String,
    mean_probability: String,
    distribution: Vec<u32>,
}

impl SideRow {
    fn of(role: &'static str, s: &registry::Side) -> Self {
        Self {
            role,
            model: format!("{}@{}", s.model.id, s.model.version),
            approved: s.approved,
            referred: s.referred,
            declined: s.declined,
            approval_rate: format!("{:.1} %", s.approval_rate * 100.0),
            mean_probability: format!("{:.2} %", s.mean_probability * 100.0),
            distribution: s.distribution.to_vec(),
        }
    }
}

/// The credit models' part of the console (issue #48 item 3).
struct Models {
    champion: String,
    challenger: Option<String>,
    decisions: u32,
    disagreements: u32,
    sides: Vec<SideRow>,
    bands: Vec<String>,
}

/// How many of the newest shadow scores the console compares over.
const COMPARED: u32 = 10_000;

async fn models(state: &DashboardState) -> Result<Models, lendhub_store::StoreError> {
    let roles = state.lending.model_roles().await?;
    let Some(in_force) = roles.in_force() else {
        return Err(lendhub_store::StoreError::Internal(
            "no credit model is bundled".to_owned(),
        ));
    };
    let name = |m: &lendhub_domain::credit_model::Scorecard| format!("{}@{}", m.id, m.version);
    let mut shown = Models {
        champion: name(in_force.champion),
        challenger: in_force.challenger.map(name),
        decisions: 0,
        disagreements: 0,
        sides: Vec::new(),
        bands: Vec::new(),
    };
    if let Some(challenger) = in_force.challenger {
        let scores = state.lending.shadow_scores(COMPARED).await?;
        if let Some(c) = registry::compare(
            &scores,
            &ModelRef::of(in_force.champion),
            &ModelRef::of(challenger),
        ) {
            shown.decisions = c.decisions;
            shown.disagreements = c.disagreements;
            shown.sides = vec![
                SideRow::of("champion", &c.champion),
                SideRow::of("challenger", &c.challenger),
            ];
            let mut from = 0.0_f64;
            for to in registry::BANDS {
                shown.bands.push(format!(
                    "{}–{} %",
                    (from * 100.0).round(),
                    (to * 100.0).round()
                ));
                from = to;
            }
        }
    }
    Ok(shown)
}

#[derive(Template)]
#[template(path = "dashboard/operations.html")]
struct Console {
    email: String,
    csrf: String,
    open: usize,
    rows: Vec<Row>,
    models: Models,
    monitoring: super::model_monitoring::Monitoring,
}

/// `GET /dashboard/operations`: the reconciliation items.
pub async fn home(State(state): State<DashboardState>, operator: Operator) -> Response {
    let Ok(items) = crate::flows::reconcile::items(&state.flows, SHOWN).await else {
        return refusals::unavailable();
    };
    let Ok(models) = models(&state).await else {
        return refusals::unavailable();
    };
    let Ok(monitoring) = super::model_monitoring::monitoring(&state).await else {
        return refusals::unavailable();
    };
    let rows: Vec<Row> = items.iter().map(Row::of).collect();
    // `screen`: its sign-out form ends at the identity provider, which
    // the page's form-action must allow.
    super::pages::screen(
        &state,
        StatusCode::OK,
        &Console {
            email: operator.email,
            csrf: operator.session.csrf,
            open: rows.iter().filter(|r| r.open).count(),
            rows,
            models,
            monitoring,
        },
    )
}

/// Where the provider returns operators after signing out.
pub const SIGNED_OUT: &str = "/dashboard/operations/signed-out";

/// `GET /dashboard/operations/signed-out`.
pub async fn signed_out() -> Response {
    super::refusals::signed_out(
        "Your operations console session has ended.",
        "/dashboard/operations/sign-in",
    )
}

/// `POST /dashboard/operations/sign-out`: the session ends here, then at
/// the identity provider (whose session would sign them straight back in).
pub async fn sign_out(
    State(state): State<DashboardState>,
    operator: Operator,
    Form(form): Form<super::pages::SignOut>,
) -> Response {
    use subtle::ConstantTimeEq;
    let presented = form.csrf_token.as_bytes();
    if !bool::from(operator.session.csrf.as_bytes().ct_eq(presented)) {
        return refusals::forbidden(super::forms::EXPIRED);
    }
    let at = state.clock.now_ms();
    if state
        .dashboard
        .end_operator_session(&operator.session.token_hash, at)
        .await
        .is_err()
    {
        return refusals::unavailable();
    }
    let mut response = super::pages::signed_out_at_provider(
        &state,
        "Your operations console session has ended.",
        (SIGNED_OUT, "/dashboard/operations/sign-in"),
    );
    if let Some(c) = cookie(&state, None) {
        response.headers_mut().append(header::SET_COOKIE, c);
    }
    response
}
