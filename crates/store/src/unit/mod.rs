//! The unit of work, written once: what each [`Write`] of a [`WriteSet`]
//! runs, as *checks* (its conditions) and *steps* (its row changes), in
//! statements both backends run. A backend adds how a unit commits:
//!
//! - SQLite's one writer runs a set's checks, then its steps, inside its
//!   group commit; a check that finds no row fails that set alone.
//! - PostgreSQL's batcher runs the checks of a whole batch first, in the
//!   lock order below, each locking the row it reads until commit; then
//!   the steps of the sets whose checks all passed; and gives back what a
//!   failed set's passed checks took (`release`).
//!
//! What the backends keep to themselves: claiming the idempotency key
//! (SQLite's index of recent keys, PostgreSQL's claim that waits for an
//! uncommitted one), and storing events with their deliveries (PostgreSQL
//! numbers a batch's events per owner in one statement). So a set's
//! [`EventWrite::InsertEvent`]s have no steps here.
//!
//! # Lock order
//!
//! Checks run in this order in every batch on every instance, so two
//! batches that need the same rows take them in the same order and never
//! deadlock. Each context owns a range of ranks; within a rank, rows are
//! sorted by key.
//!
//! | rank  | context      | rows locked                                        |
//! |-------|--------------|----------------------------------------------------|
//! | 0     | unit of work | idempotency keys, by (owner, key)                  |
//! | 10    | sandbox      | applications, by id                                |
//! | 11    | sandbox      | test clocks (upsert, so locked), by owner          |
//! | 19    | events       | endpoint slots (an owner's count row), by owner    |
//! | 20    | events       | webhook endpoints, by id                           |
//! | 30–32 | lending      | hub applications, journeys, decisions, by id       |
//! | 33    | lending      | a week's drift alert, by (week, environment, model)|
//! | 40–49 | servicing    | payments, accounts, schedules, mandates, by id     |
//! | 50–59 | commercial   | a month's close, by (owner, period)                |
//! | 60    | ledger       | the pending transfer a post or void closes, by id  |
//! | last  | events       | event heads, by owner, when the events go in       |
//!
//! A new context that locks rows takes the next free range here.

mod access;
mod brand;
pub(crate) mod commercial;
mod events;
mod ledger;
mod lending;
mod sandbox;
mod staff;

use crate::error::StoreError;
use crate::exec::{Dialect, Statement, Value};
use crate::sql;
use crate::*;

/// A check's place in the lock order: its rank, then its row's key.
pub(crate) type Rank = (u8, String, String);

/// A write's condition: a statement that touches exactly one row when the
/// condition holds (a read of that row, or the change that is the
/// condition itself, such as taking a slot).
#[derive(Debug)]
pub(crate) struct Check {
    pub rank: Rank,
    /// The row whose change the condition guards, as (kind, key): a
    /// second conditional change of one row in a PostgreSQL batch cannot
    /// follow the first (both were computed from the same state).
    pub row: Option<(&'static str, String)>,
    pub test: Statement,
    /// What gives back what `test` took, for a set that failed another
    /// check (PostgreSQL; SQLite's savepoint undoes it).
    pub release: Option<Statement>,
}

/// One write set's checks and steps, in the order its writes came.
#[derive(Debug, Default)]
pub(crate) struct Unit {
    pub checks: Vec<Check>,
    pub steps: Vec<Statement>,
}

impl Unit {
    fn check(&mut self, check: Check) {
        self.checks.push(check);
    }

    fn step(&mut self, sql: &'static str, values: Vec<Value>) {
        self.steps.push(Statement::change(sql, values));
    }
}

/// What `set` runs on a backend speaking `dialect` (its idempotency key
/// and its events aside, see the module's introduction).
pub(crate) fn plan(set: &WriteSet, dialect: &Dialect) -> Result<Unit, StoreError> {
    let mut unit = Unit::default();
    for write in &set.writes {
        match write {
            Write::Sandbox(w) => sandbox::plan(w, dialect, &mut unit)?,
            Write::Events(w) => events::plan(w, dialect, &mut unit)?,
            Write::Lending(w) => lending::plan(w, dialect, &mut unit)?,
            Write::Commercial(w) => commercial::plan(w, dialect, &mut unit)?,
            Write::Ledger(w) => ledger::plan(w, dialect, &mut unit)?,
            Write::Access(w) => access::plan(w, &mut unit),
            Write::Staff(w) => staff::plan(w, &mut unit),
            Write::Brand(w) => brand::plan(w, &mut unit)?,
            Write::Audit(a) => unit.step(
                sql::dashboard::INSERT_AUDIT,
                values![
                    a.id.as_str(),
                    a.partner_client_id.as_str(),
                    a.user_id.as_str(),
                    a.email.as_str(),
                    a.action.as_str(),
                    a.target.as_str(),
                    a.environment.as_str(),
                    a.at_ms
                ],
            ),
            Write::Public(PublicWrite::InsertEnquiry { enquiry, mail }) => {
                let [enquiry, mail] = crate::queries::public::enquiry_values(enquiry, mail);
                unit.step(sql::public::INSERT_ENQUIRY, enquiry);
                unit.step(sql::public::QUEUE_ENQUIRY_MAIL, mail);
            }
            Write::Public(PublicWrite::Mail {
                id,
                recipient,
                subject,
                body,
                due_ms,
            }) => unit.step(
                sql::public::QUEUE_ENQUIRY_MAIL,
                values![
                    id.as_str(),
                    None::<String>,
                    recipient.as_str(),
                    subject.as_str(),
                    body.as_str(),
                    *due_ms
                ],
            ),
            Write::Public(PublicWrite::MailPartner {
                id,
                client_id,
                subject,
                body,
                due_ms,
            }) => unit.step(
                sql::events::MAIL_PARTNER,
                values![
                    id.as_str(),
                    client_id.as_str(),
                    subject.as_str(),
                    body.as_str(),
                    *due_ms
                ],
            ),
        }
    }
    Ok(unit)
}

/// A record as the JSON its row's body holds.
fn json<T: serde::Serialize>(value: &T) -> Result<Value, StoreError> {
    crate::exec::to_json(value).map(Value::Text)
}

/// A check that reads one row, its key `key` at rank `rank`.
fn read_check(rank: u8, key: &str, row: Option<&'static str>, test: Statement) -> Check {
    Check {
        rank: (rank, key.to_owned(), String::new()),
        row: row.map(|kind| (kind, key.to_owned())),
        test,
        release: None,
    }
}
