//! Accounts and payments: the loans the partner's applications became,
//! each with its balance today (on its owner's clock) and its immutable
//! ledger, its payment schedules and its payments; and every payment of the
//! environment, filtered by status. Every role reads them.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::ids::{AccountId, HubId, PaymentId};
use lendhub_domain::partner::dashboard::Environment;
use lendhub_domain::people::{self, Pounds};
use lendhub_domain::servicing::account::{Account, AccountStatus};
use lendhub_domain::servicing::collection::{Payment, PaymentStatus};
use lendhub_store::{AccountPage, AccountQuery, PaymentPage, PaymentQuery};
use serde::Deserialize;

use super::forms::moment;
use super::pages::{Frame, screen, tenant};
use super::paging::{Cursor, Paging};
use super::refusals::{not_found, unavailable};
use super::session::Staff;
use crate::dashboard::state::DashboardState;
use crate::flows::FlowError;
use crate::flows::accounts::{self, Read, Reader};

const PAGE: u32 = 25;

#[derive(Deserialize, Default)]
pub struct MoneyQuery {
    env: Option<String>,
    status: Option<String>,
    #[serde(flatten)]
    cursor: Cursor,
}

/// A list's path with its environment and status, for its page links.
fn list(path: &str, env: Environment, status: Option<&str>) -> String {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("env", env.as_str())
        .append_pair("status", status.unwrap_or_default())
        .finish();
    format!("{path}?{query}")
}

fn date(t: time::OffsetDateTime) -> String {
    people::date_at(t)
}

struct AccountRow {
    id: String,
    company: String,
    status: &'static str,
    principal: Pounds,
    opened: String,
}

fn account_row(a: &Account) -> AccountRow {
    AccountRow {
        id: a.id.to_string(),
        company: if a.company_name.is_empty() {
            a.company_number.clone()
        } else {
            a.company_name.clone()
        },
        status: a.status.as_str(),
        principal: Pounds(a.principal()),
        opened: date(a.opened_at),
    }
}

#[derive(Template)]
#[template(path = "dashboard/accounts.html")]
struct Accounts {
    f: Frame,
    rows: Vec<AccountRow>,
    statuses: Vec<(&'static str, bool)>,
    paging: Paging,
}

/// `GET /dashboard/accounts`
pub async fn accounts(
    State(state): State<DashboardState>,
    staff: Staff,
    Query(q): Query<MoneyQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let status = AccountStatus::ALL
        .into_iter()
        .map(AccountStatus::as_str)
        .find(|s| Some(*s) == q.status.as_deref());
    let query = AccountQuery {
        page: q.cursor.query(PAGE, |c| AccountId::parse(c).is_some()),
        status,
        sub_account_id: None,
    };
    match state
        .servicing
        .hub_accounts(&tenant(&staff, env), &query)
        .await
    {
        Ok(AccountPage::Page(p)) => screen(
            &state,
            StatusCode::OK,
            &Accounts {
                f: Frame::of(&state, &staff, env),
                paging: Paging::of(
                    &q.cursor,
                    &query.page,
                    &p,
                    |a| a.id.to_string(),
                    &list("/dashboard/accounts", env, status),
                    "accounts",
                ),
                rows: p.items.iter().map(account_row).collect(),
                statuses: AccountStatus::ALL
                    .iter()
                    .map(|s| (s.as_str(), Some(s.as_str()) == status))
                    .collect(),
            },
        ),
        Ok(AccountPage::UnknownCursor) => not_found(),
        Err(_) => unavailable(),
    }
}

struct EntryRow {
    id: String,
    kind: &'static str,
    amount: Pounds,
    posted: String,
    payment: String,
    note: String,
}

struct ScheduleRow {
    id: String,
    status: &'static str,
    cadence: &'static str,
    amount: Pounds,
    start: String,
    progress: String,
}

struct PaymentRow {
    id: String,
    account: String,
    status: &'static str,
    amount: Pounds,
    reference: String,
    created: String,
    instalment: String,
}

fn payment_row(p: &Payment) -> PaymentRow {
    PaymentRow {
        id: p.id.to_string(),
        account: p.account_id.to_string(),
        status: p.status.as_str(),
        amount: Pounds(p.amount),
        reference: p.reference.clone().unwrap_or_default(),
        created: moment(lendhub_domain::clock::unix_ms(p.created_at)),
        instalment: p
            .schedule
            .as_ref()
            .map(|i| format!("{} #{}", i.schedule_id, i.number))
            .unwrap_or_default(),
    }
}

#[derive(Template)]
#[template(path = "dashboard/account.html")]
struct AccountView {
    f: Frame,
    a: AccountRow,
    reference: String,
    partner_ref: String,
    application: String,
    term_months: u32,
    monthly: Pounds,
    principal_outstanding: Pounds,
    interest_accrued: Pounds,
    arrears: Pounds,
    payoff: Pounds,
    as_of: String,
    entries: Vec<EntryRow>,
    schedules: Vec<ScheduleRow>,
    payments: Vec<PaymentRow>,
}

/// `GET /dashboard/accounts/{id}`: the balance today, the whole statement
/// (newest first, as the API pages it), the schedules and the latest
/// payments.
pub async fn account(
    State(state): State<DashboardState>,
    staff: Staff,
    Path(id): Path<String>,
    Query(q): Query<MoneyQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let owner = tenant(&staff, env);
    let Ok(now) = state.flows.now_for(&owner).await else {
        return unavailable();
    };
    let reader = Reader::Partner {
        owner: owner.clone(),
        now,
    };
    let Read {
        account: a,
        transfers,
        ..
    } = match accounts::read(&state.flows, &reader, &id).await {
        Ok(read) => read,
        Err(FlowError::NotFound(_)) => return not_found(),
        Err(_) => return unavailable(),
    };
    let id = a.id.clone();
    let payments = PaymentQuery {
        page: lendhub_domain::paging::PageQuery {
            limit: PAGE,
            ..Default::default()
        },
        account_id: Some(id.to_string()),
        status: None,
    };
    let (Ok(schedules), Ok(PaymentPage::Page(payments))) = (
        state.servicing.account_schedules(&owner, &id).await,
        state.servicing.hub_payments(&owner, &payments).await,
    ) else {
        return unavailable();
    };
    let (Some(b), Some(entries)) = (
        lendhub_domain::servicing::ledger::balance(&a, &transfers, now),
        lendhub_domain::servicing::statement::statement(&a, &transfers),
    ) else {
        tracing::error!(account = %a.id, "the balance overflows");
        return unavailable();
    };
    screen(
        &state,
        StatusCode::OK,
        &AccountView {
            f: Frame::of(&state, &staff, env),
            reference: a.reference.clone().unwrap_or_default(),
            partner_ref: a.partner_ref.clone().unwrap_or_default(),
            application: a.application_id.to_string(),
            term_months: a.terms.term_months,
            monthly: Pounds(a.terms.monthly_repayment_pence),
            principal_outstanding: Pounds(b.principal_outstanding),
            interest_accrued: Pounds(b.interest_accrued),
            arrears: Pounds(b.arrears),
            payoff: Pounds(b.payoff),
            as_of: moment(lendhub_domain::clock::unix_ms(now)),
            entries: entries
                .iter()
                .map(|e| EntryRow {
                    id: e.id.to_string(),
                    kind: e.kind.as_str(),
                    amount: Pounds(e.amount),
                    posted: moment(lendhub_domain::clock::unix_ms(e.posted_at)),
                    payment: e.payment_id.clone().unwrap_or_default(),
                    note: e.note.clone().unwrap_or_default(),
                })
                .collect(),
            schedules: schedules
                .iter()
                .map(|s| ScheduleRow {
                    id: s.id.to_string(),
                    status: s.status.as_str(),
                    cadence: s.cadence.as_str(),
                    amount: Pounds(s.amount),
                    start: people::date(s.start_date),
                    progress: match s.count {
                        Some(n) => format!("{} of {n}", s.initiated),
                        None => format!("{} so far (open-ended)", s.initiated),
                    },
                })
                .collect(),
            payments: payments.items.iter().map(payment_row).collect(),
            a: account_row(&a),
        },
    )
}

#[derive(Template)]
#[template(path = "dashboard/payments.html")]
struct Payments {
    f: Frame,
    rows: Vec<PaymentRow>,
    statuses: Vec<(&'static str, bool)>,
    paging: Paging,
}

/// `GET /dashboard/payments`
pub async fn payments(
    State(state): State<DashboardState>,
    staff: Staff,
    Query(q): Query<MoneyQuery>,
) -> Response {
    let env = Environment::from_query(q.env.as_deref());
    let status = q
        .status
        .as_deref()
        .and_then(PaymentStatus::parse)
        .map(PaymentStatus::as_str);
    let query = PaymentQuery {
        page: q.cursor.query(PAGE, |c| PaymentId::parse(c).is_some()),
        account_id: None,
        status,
    };
    match state
        .servicing
        .hub_payments(&tenant(&staff, env), &query)
        .await
    {
        Ok(PaymentPage::Page(p)) => screen(
            &state,
            StatusCode::OK,
            &Payments {
                f: Frame::of(&state, &staff, env),
                paging: Paging::of(
                    &q.cursor,
                    &query.page,
                    &p,
                    |a| a.id.to_string(),
                    &list("/dashboard/payments", env, status),
                    "payments",
                ),
                rows: p.items.iter().map(payment_row).collect(),
                statuses: PaymentStatus::ALL
                    .iter()
                    .map(|s| (s.as_str(), Some(s.as_str()) == status))
                    .collect(),
            },
        ),
        Ok(PaymentPage::UnknownCursor) => not_found(),
        Err(_) => unavailable(),
    }
}
