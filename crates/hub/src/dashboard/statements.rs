//! Statements and invoices, for the roles that read the money (owners and
//! finance): each month's statement of the environment on screen, newest
//! first, and each downloadable as its printable invoice (HTML) or as a CSV
//! of its lines for a finance team's spreadsheet.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lendhub_domain::billing::statement::{Payer, Statement};
use lendhub_domain::ids::{HubId, StatementId};
use lendhub_domain::money::Money;
use lendhub_domain::partner::dashboard::{Action, Environment};
use lendhub_domain::people::{self, Pounds};
use lendhub_store::{StatementPage, StatementQuery};
use serde::Deserialize;

use super::pages::{Frame, screen, tenant};
use super::refusals::{forbidden, not_found, unavailable};
use super::session::Staff;
use crate::dashboard::state::DashboardState;

const NOT_YOURS: &str =
    "Statements and invoices are for the owner and finance roles. Ask an owner for access.";

struct Row {
    id: String,
    period: String,
    model: &'static str,
    status: &'static str,
    originations: u32,
    volume: Pounds,
    payable: Pounds,
    /// Who settles it: "You pay" or "Paid to you".
    direction: &'static str,
    invoice_date: String,
}

fn row(s: &Statement) -> Row {
    Row {
        id: s.id.to_string(),
        period: s.period.clone(),
        model: if s.model == "integration_fee" {
            "Integration fee"
        } else {
            "Revenue share"
        },
        status: s.status.as_str(),
        originations: s.funded_originations,
        volume: Pounds(Money::pence(s.funded_volume_pence)),
        payable: Pounds(Money::pence(s.payable_pence)),
        direction: match s.payable_by {
            Payer::Partner => "You pay",
            Payer::Lender => "Paid to you",
        },
        invoice_date: people::date(s.invoice_date),
    }
}

#[derive(Template)]
#[template(path = "dashboard/statements.html")]
struct Statements {
    f: Frame,
    rows: Vec<Row>,
    paging: super::paging::Paging,
}

#[derive(Deserialize, Default)]
pub struct StatementsQuery {
    env: Option<String>,
    #[serde(flatten)]
    cursor: super::paging::Cursor,
}

/// `GET /dashboard/statements`
pub async fn list(
    State(state): State<DashboardState>,
    staff: Staff,
    Query(q): Query<StatementsQuery>,
) -> Response {
    if !staff.role.may(Action::ReadBilling) {
        return forbidden(NOT_YOURS);
    }
    let env = Environment::from_query(q.env.as_deref());
    let query = StatementQuery {
        page: q.cursor.query(24, |c| StatementId::parse(c).is_some()),
        period: None,
    };
    match state
        .commercial
        .statements(&tenant(&staff, env), &query)
        .await
    {
        Ok(StatementPage::Page(p)) => screen(
            &state,
            StatusCode::OK,
            &Statements {
                f: Frame::of(&state, &staff, env),
                paging: super::paging::Paging::of(
                    &q.cursor,
                    &query.page,
                    &p,
                    |s| s.id.to_string(),
                    &format!("/dashboard/statements?env={}", env.as_str()),
                    "statements",
                ),
                rows: p.items.iter().map(row).collect(),
            },
        ),
        Ok(StatementPage::UnknownCursor) => not_found(),
        Err(_) => unavailable(),
    }
}

#[derive(Deserialize, Default)]
pub struct EnvQuery {
    env: Option<String>,
}

/// The caller's statement `id` in the environment asked for.
async fn own(
    state: &DashboardState,
    staff: &Staff,
    env: Environment,
    id: &str,
) -> Result<Statement, Response> {
    if !staff.role.may(Action::ReadBilling) {
        return Err(forbidden(NOT_YOURS));
    }
    let Some(id) = StatementId::parse(id) else {
        return Err(not_found());
    };
    match state.commercial.statement(&tenant(staff, env), &id).await {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err(not_found()),
        Err(_) => Err(unavailable()),
    }
}

/// Marks `response` as a file to save, named `name`.
fn attachment(mut response: Response, name: &str) -> Response {
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, v);
    }
    response
}

/// `GET /dashboard/statements/{id}/invoice`: the printable invoice, as a
/// file (the API's `GET /statements/{id}/invoice`, the same page).
pub async fn invoice(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Query(q): Query<EnvQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    match own(&state, &staff, env, &id).await {
        Ok(s) => attachment(
            crate::views::invoice::page(&s),
            &format!("lendhub-{}-{}.html", s.period, s.id),
        ),
        Err(r) => r,
    }
}

/// `GET /dashboard/statements/{id}/csv`: the statement's lines, then its
/// payouts and adjustments, and the total, one row each; pence as integers
/// beside pounds, so a spreadsheet sums them exactly.
pub async fn csv(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Query(q): Query<EnvQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let s = match own(&state, &staff, env, &id).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    match csv_of(&s) {
        Ok(body) => attachment(
            (
                StatusCode::OK,
                [
                    (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
                    (header::CACHE_CONTROL, "no-store"),
                ],
                body,
            )
                .into_response(),
            &format!("lendhub-{}-{}.csv", s.period, s.id),
        ),
        Err(e) => {
            tracing::error!(error = %e, "writing a statement's CSV");
            unavailable()
        }
    }
}

/// One row per line, payout and adjustment, then the total.
fn csv_of(s: &Statement) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "statement",
        "period",
        "row",
        "account_or_sub_account",
        "partner_ref",
        "funded_on",
        "principal_pence",
        "net_margin_pence",
        "amount_pence",
        "amount_gbp",
        "note",
    ])?;
    let id = s.id.to_string();
    let pounds = |p: i64| Money::pence(p).to_string();
    for l in &s.lines {
        w.write_record([
            id.as_str(),
            &s.period,
            if s.model == "integration_fee" {
                "fee"
            } else {
                "share"
            },
            l.account_id.as_str(),
            l.partner_ref.as_deref().unwrap_or(""),
            &l.funded_at.date().to_string(),
            &l.principal_pence.to_string(),
            &l.net_margin_pence.to_string(),
            &l.amount_pence.to_string(),
            &pounds(l.amount_pence),
            "",
        ])?;
    }
    for p in &s.payouts {
        w.write_record([
            id.as_str(),
            &s.period,
            "payout",
            p.sub_account_id.as_str(),
            "",
            "",
            "",
            "",
            &p.gross_pence.to_string(),
            &pounds(p.gross_pence),
            &format!("{} introductions", p.introductions),
        ])?;
    }
    for a in &s.adjustments {
        w.write_record([
            id.as_str(),
            &s.period,
            "adjustment",
            "",
            "",
            "",
            "",
            "",
            &a.amount_pence.to_string(),
            &pounds(a.amount_pence),
            &format!("corrects {}: {}", a.corrects, a.reason),
        ])?;
    }
    let who = match s.payable_by {
        Payer::Partner => "payable by the partner",
        Payer::Lender => "payable to the partner",
    };
    w.write_record([
        id.as_str(),
        &s.period,
        "total",
        "",
        "",
        "",
        "",
        "",
        &s.payable_pence.to_string(),
        &pounds(s.payable_pence),
        &format!("{who}, {}, GBP exclusive of VAT", s.status.as_str()),
    ])?;
    w.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}
