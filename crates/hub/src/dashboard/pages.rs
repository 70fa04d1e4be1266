//! The dashboard's screens so far: home, applications with their decision,
//! sign-out; and the pages for what went wrong. Every read works without
//! JavaScript; each screen names its environment and links to the other.

use askama::Template;
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::{ApplicationId, HubId};
use lendhub_domain::lending::application::{Application, Status};
use lendhub_domain::partner::dashboard::Environment;
use lendhub_domain::people::{self, Pounds};
use lendhub_domain::tenant::Tenant;
use lendhub_store::{ApplicationPage, ApplicationQuery, PageQuery};
use serde::Deserialize;

use super::refusals::{forbidden, not_found, unavailable};
use super::session::{self, COOKIE, Staff};
use crate::dashboard::state::DashboardState;
use crate::html::render_with_own_scripts;

/// The header every screen carries.
pub(super) struct Frame {
    pub(super) partner: String,
    pub(super) email: String,
    pub(super) role: &'static str,
    /// Owners see the audit log.
    pub(super) owner: bool,
    /// Owners and finance see statements.
    pub(super) billing: bool,
    /// Owners and developers change the branding.
    pub(super) branding: bool,
    pub(super) env: &'static str,
    pub(super) other_env: &'static str,
    pub(super) csrf: String,
    /// Served by model servers in this environment, comma-separated.
    pub(super) models: String,
    /// Simulated in process in this environment, comma-separated.
    pub(super) in_process: String,
}

impl Frame {
    pub(super) fn of(state: &DashboardState, staff: &Staff, env: Environment) -> Self {
        let stand_ins = state.stand_ins.get(env.credentials());
        Frame {
            models: stand_ins.models.join(", "),
            in_process: stand_ins.in_process.join(", "),
            partner: staff.member.partner_name.clone(),
            email: staff.member.email.clone(),
            role: staff.role.label(),
            owner: staff
                .role
                .may(lendhub_domain::partner::dashboard::Action::ManageStaff),
            billing: staff
                .role
                .may(lendhub_domain::partner::dashboard::Action::ReadBilling),
            branding: staff
                .role
                .may(lendhub_domain::partner::dashboard::Action::ManageBranding),
            env: env.as_str(),
            other_env: env.other().as_str(),
            csrf: staff.session.csrf.clone(),
        }
    }
}

/// Rows on a page of a list.
const PAGE: u32 = 25;

pub(super) fn tenant(staff: &Staff, env: Environment) -> Tenant {
    Tenant::partner(&staff.session.partner_client_id, env.livemode(), None)
}

#[derive(Deserialize, Default)]
pub struct ListQuery {
    pub(super) env: Option<String>,
    status: Option<String>,
    /// Any part of an id, reference, company number or company name.
    q: Option<String>,
    #[serde(flatten)]
    cursor: super::paging::Cursor,
}

struct Row {
    id: String,
    status: &'static str,
    /// The partner's own reference, what they look an application up by.
    reference: String,
    company: String,
    amount: String,
    created: String,
}

fn row(a: &Application) -> Row {
    Row {
        id: a.id.to_string(),
        status: a.status.as_str(),
        reference: a.reference.clone().unwrap_or_default(),
        company: if a.company_name.is_empty() {
            a.company_number.clone()
        } else {
            a.company_name.clone()
        },
        amount: people::money(a.amount),
        created: people::date_at(a.created_at),
    }
}

#[derive(Template)]
#[template(path = "dashboard/home.html")]
struct Home {
    f: Frame,
    recent: Vec<Row>,
    panels: [super::charts::Panel; 2],
    figures: Vec<super::charts::Figures>,
}

#[derive(Template)]
#[template(path = "dashboard/applications.html")]
struct Applications {
    f: Frame,
    rows: Vec<Row>,
    statuses: Vec<(&'static str, bool)>,
    search: String,
    paging: super::paging::Paging,
}

#[derive(Template)]
#[template(path = "dashboard/application.html")]
struct ApplicationPageView {
    f: Frame,
    a: Row,
    term_months: u32,
    reference: String,
    account: Option<String>,
    decision: Option<DecisionView>,
}

/// An application's decision as the page shows it.
struct DecisionView {
    id: String,
    outcome: &'static str,
    /// Each reason's code and what it means.
    reasons: Vec<(&'static str, &'static str)>,
    /// `pd-scorecard 1: 0.61 % probability of default`, when the model decided.
    model: String,
    factors: Vec<crate::views::explanation::Factor>,
    offer: Option<OfferView>,
    decided: String,
    expires: String,
    accepted: String,
}

struct OfferView {
    amount: Pounds,
    term_months: u32,
    apr: f64,
    monthly: Pounds,
    total: Pounds,
}

fn decision_view(d: &lendhub_domain::lending::application::Decision) -> DecisionView {
    let at = |t: time::OffsetDateTime| super::forms::moment(lendhub_domain::clock::unix_ms(t));
    DecisionView {
        id: d.id.to_string(),
        outcome: d.verdict.outcome.as_str(),
        reasons: d
            .verdict
            .reasons
            .iter()
            .map(|r| (r.code.as_str(), people::reason(r.code)))
            .collect(),
        model: d.verdict.scored.as_ref().map_or_else(String::new, |s| {
            format!(
                "{} {}: {:.2} % probability of default (approved below {} %, declined from {} %)",
                s.model.id,
                s.model.version,
                s.score.probability * 100.0,
                s.cutoffs.approve_below * 100.0,
                s.cutoffs.decline_from * 100.0
            )
        }),
        factors: d
            .verdict
            .scored
            .as_ref()
            .map(crate::views::explanation::factors)
            .unwrap_or_default(),
        offer: d.verdict.offer.as_ref().map(|o| OfferView {
            amount: Pounds(o.amount_pence),
            term_months: o.term_months,
            apr: o.apr,
            monthly: Pounds(o.monthly_repayment_pence),
            total: Pounds(o.total_repayable_pence),
        }),
        decided: at(d.decided_at),
        expires: d.expires_at.map(at).unwrap_or_default(),
        accepted: match (d.accepted_at, &d.signed_by) {
            (Some(t), Some(who)) => format!("{} by {who}", at(t)),
            (Some(t), None) => at(t),
            _ => String::new(),
        },
    }
}

/// A signed-in screen: its sign-out form ends by sending the browser to the
/// identity provider, so the page's `form-action` allows that origin.
pub(super) fn screen(
    state: &DashboardState,
    status: StatusCode,
    template: &impl Template,
) -> Response {
    let provider = state.rp.as_ref().map(|rp| rp.issuer.as_str());
    render_with_own_scripts(status, template, provider)
}

async fn page(
    state: &DashboardState,
    owner: &Tenant,
    query: &ApplicationQuery,
) -> Result<Option<lendhub_domain::paging::Page<Application>>, Response> {
    match state.lending.hub_applications(owner, query).await {
        Ok(ApplicationPage::Page(p)) => Ok(Some(p)),
        Ok(ApplicationPage::UnknownCursor) => Ok(None),
        Err(_) => Err(unavailable()),
    }
}

/// `GET /dashboard`: the latest applications, and the last 30 days of
/// requests and webhook deliveries (days on the environment's clock).
pub async fn home(
    State(state): State<DashboardState>,
    staff: Staff,
    Query(q): Query<ListQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let owner = tenant(&staff, env);
    let Ok(now) = state.flows.now_for(&owner).await else {
        return unavailable();
    };
    // This instance's latest counts first, so the page is current for
    // anything asked of it; other instances' arrive within their interval.
    state.traffic.flush(state.dashboard.as_ref()).await;
    let today = now.date();
    let first = today
        .checked_sub(time::Duration::days(i64::from(super::charts::DAYS) - 1))
        .unwrap_or(today)
        .to_string();
    let counts = match state.dashboard.usage_since(owner.as_str(), &first).await {
        Ok(c) => c,
        Err(_) => return unavailable(),
    };
    let panels = super::charts::panels(&counts, today);
    let latest = ApplicationQuery {
        page: PageQuery {
            limit: 5,
            ..PageQuery::default()
        },
        ..ApplicationQuery::default()
    };
    match page(&state, &owner, &latest).await {
        Ok(found) => screen(
            &state,
            StatusCode::OK,
            &Home {
                f: Frame::of(&state, &staff, env),
                recent: found
                    .map(|p| p.items.iter().map(row).collect())
                    .unwrap_or_default(),
                figures: super::charts::figures(&panels),
                panels,
            },
        ),
        Err(r) => r,
    }
}

/// `GET /dashboard/applications`: newest first, by status, and searched
/// by any part of an id, reference, company number or company name.
pub async fn applications(
    State(state): State<DashboardState>,
    staff: Staff,
    Query(q): Query<ListQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let status = Status::parse(q.status.as_deref().unwrap_or_default());
    let search = q.q.as_deref().map(str::trim).unwrap_or_default().to_owned();
    let query = ApplicationQuery {
        page: q.cursor.query(PAGE, |c| ApplicationId::parse(c).is_some()),
        status,
        search: (!search.is_empty()).then(|| search.clone()),
        ..ApplicationQuery::default()
    };
    let found = match page(&state, &tenant(&staff, env), &query).await {
        Ok(Some(found)) => found,
        Ok(None) => return not_found(),
        Err(r) => return r,
    };
    let list = format!(
        "/dashboard/applications?{}",
        url::form_urlencoded::Serializer::new(String::new())
            .append_pair("env", env.as_str())
            .append_pair("status", status.map_or("", |s| s.as_str()))
            .append_pair("q", &search)
            .finish()
    );
    let paging = super::paging::Paging::of(
        &q.cursor,
        &query.page,
        &found,
        |a| a.id.to_string(),
        &list,
        "applications",
    );
    screen(
        &state,
        StatusCode::OK,
        &Applications {
            f: Frame::of(&state, &staff, env),
            rows: found.items.iter().map(row).collect(),
            statuses: Status::ALL
                .iter()
                .map(|s| (s.as_str(), Some(*s) == status))
                .collect(),
            search,
            paging,
        },
    )
}

/// `GET /dashboard/applications/{id}`: only this partner's, in this
/// environment; anything else is 404.
pub async fn application(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Query(q): Query<ListQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let owner = tenant(&staff, env);
    let Some(id) = ApplicationId::parse(&id) else {
        return not_found();
    };
    let a = match state.lending.hub_application(&owner, &id).await {
        Ok(Some(a)) => a,
        Ok(None) => return not_found(),
        Err(_) => return unavailable(),
    };
    let decision = match &a.decision_id {
        None => None,
        Some(d) => match state.lending.hub_decision(&owner, d).await {
            Ok(found) => found.as_ref().map(decision_view),
            Err(_) => return unavailable(),
        },
    };
    screen(
        &state,
        StatusCode::OK,
        &ApplicationPageView {
            f: Frame::of(&state, &staff, env),
            term_months: a.term_months,
            reference: a.reference.clone().unwrap_or_default(),
            account: a.account_id.as_ref().map(ToString::to_string),
            decision,
            a: row(&a),
        },
    )
}

#[derive(Deserialize)]
pub struct SignOut {
    // Absent reads as empty, which no session's token matches: the form
    // is refused with the expired-form page, not a raw 422.
    #[serde(default)]
    pub(super) csrf_token: String,
}

/// After a session ends here, it ends at the identity provider too
/// (RP-initiated logout, which asks the person to confirm): otherwise its
/// session would sign them straight back in. `ended` says what ended when
/// there is no provider.
/// Signed out here, then at the provider, which sends the browser back
/// to `back` (a page registered with it as a place to return after
/// signing out) to offer signing in again.
pub(super) fn signed_out_at_provider(
    state: &DashboardState,
    ended: &str,
    (back, sign_in): (&str, &str),
) -> Response {
    match state.rp.as_ref() {
        Some(rp) => {
            let mut url = format!("{}/end-session", rp.issuer);
            url.push('?');
            url.push_str(
                &url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("client_id", crate::relying_party::DASHBOARD_CLIENT_ID)
                    .append_pair(
                        "post_logout_redirect_uri",
                        &format!("{}{back}", state.links.urls.base),
                    )
                    .finish(),
            );
            Redirect::to(&url).into_response()
        }
        None => super::refusals::signed_out(ended, sign_in),
    }
}

/// `GET /dashboard/signed-out`: where the provider sends staff back to.
pub async fn signed_out() -> Response {
    super::refusals::signed_out("Your dashboard session has ended.", "/dashboard/sign-in")
}

/// Where the provider returns staff after signing out.
pub const SIGNED_OUT: &str = "/dashboard/signed-out";

/// `POST /dashboard/sign-out`
pub async fn sign_out(
    State(state): State<DashboardState>,
    staff: Staff,
    Form(form): Form<SignOut>,
) -> Response {
    if !staff.csrf_matches(&form.csrf_token) {
        return forbidden(super::forms::EXPIRED);
    }
    if state
        .dashboard
        .end_dashboard_session(&staff.session.token_hash, state.clock.now_ms())
        .await
        .is_err()
    {
        return unavailable();
    }
    let mut response = signed_out_at_provider(
        &state,
        "Your dashboard session has ended.",
        (SIGNED_OUT, "/dashboard/sign-in"),
    );
    if let Some(c) = session::cleared(&state, COOKIE) {
        response.headers_mut().append(header::SET_COOKIE, c);
    }
    response
}

/// Anything else under `/dashboard`.
pub async fn fallback() -> Response {
    not_found()
}
