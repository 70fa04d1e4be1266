//! The sandbox's checks and writes within a group commit.

use deadpool_postgres::Transaction;
use tokio_postgres::Statement;

use super::{Bound, Needs, Param, Rank, json};
use crate::error::StoreError;
use crate::*;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::sandbox::application::Application;

/// One row, now locked until commit, if the application is still at the
/// version the update was computed from.
const LOCK_APPLICATION: &str = "SELECT 1 FROM applications
     WHERE id = $1 AND owner = $2 AND version = $3 FOR UPDATE";

/// One row, locked until commit, if the owner's clock is still at the offset
/// the advance was computed from. A clock never moved has no row: advancing
/// it from zero creates the row (locked, as inserted), and a concurrent
/// insert waits for this one and then finds the offset changed.
const LOCK_CLOCK: &str = "INSERT INTO test_clocks (owner, clock_offset_ms)
     SELECT $1::text, 0::bigint
      WHERE $2::bigint = 0 OR EXISTS (SELECT 1 FROM test_clocks WHERE owner = $1::text)
     ON CONFLICT (owner) DO UPDATE SET clock_offset_ms = test_clocks.clock_offset_ms
         WHERE test_clocks.clock_offset_ms = $2::bigint";

/// The row is locked by this transaction's check.
const SET_CLOCK: &str = "UPDATE test_clocks SET clock_offset_ms = $2 WHERE owner = $1";

/// A reset, in order: what refers to events and applications goes first.
/// The event head stays, so an owner's sequence never reuses a number (the
/// event-log position still moves). The reset's own key stays, so repeating
/// the reset replays its answer instead of wiping what came after it.
const RESET: [&str; 8] = [
    "DELETE FROM applications WHERE owner = $1",
    "DELETE FROM payments WHERE owner = $1",
    "DELETE FROM events WHERE owner = $1",
    "DELETE FROM webhook_endpoints WHERE owner = $1",
    "DELETE FROM webhook_endpoint_counts WHERE owner = $1",
    "DELETE FROM deliveries WHERE owner = $1",
    "DELETE FROM idempotency_keys WHERE owner = $1 AND key IS DISTINCT FROM $2",
    crate::sql::sandbox::RESET_CLOCK,
];

const INSERT_APPLICATION: &str = crate::sql::sandbox::APPLICATIONS_INSERT;

/// The row is locked by this transaction's check.
const UPDATE_APPLICATION: &str =
    "UPDATE applications SET status = $3, version = $4, body = $5, rendered = $6, review_due_ms = $7
     WHERE id = $1 AND owner = $2";

const INSERT_PAYMENT: &str = crate::sql::sandbox::PAYMENTS_INSERT;

/// A sandbox write's precondition.
pub(crate) enum Check<'a> {
    /// The application is still at the version the update follows.
    Version(&'a Application),
    /// The client's clock is still at this offset.
    Clock(&'a str, i64),
}

impl Check<'_> {
    /// Ranks 10–19 of the lock order (`super`).
    pub fn rank(&self) -> Rank<'_> {
        match self {
            Check::Version(a) => (10, a.id.as_str(), ""),
            Check::Clock(id, _) => (11, id, ""),
        }
    }
}

pub(crate) fn needs(write: &SandboxWrite) -> Option<Needs<'_, Check<'_>>> {
    Some(match write {
        SandboxWrite::UpdateApplication(r) => Needs {
            check: Check::Version(&r.application),
            row: Some(("application", r.application.id.as_str())),
        },
        SandboxWrite::SetClock {
            owner,
            from_offset_ms,
            ..
        } => Needs {
            check: Check::Clock(owner.as_str(), *from_offset_ms),
            row: Some(("clock", owner.as_str())),
        },
        _ => return None,
    })
}

pub(crate) struct Statements {
    lock_application: Statement,
    lock_clock: Statement,
    set_clock: Statement,
    reset: Vec<Statement>,
    insert_application: Statement,
    update_application: Statement,
    payment: Statement,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        let p = |sql| async move { tx.prepare_cached(sql).await.map_err(super::db) };
        let mut reset = Vec::with_capacity(RESET.len());
        for sql in RESET {
            reset.push(p(sql).await?);
        }
        Ok(Self {
            lock_application: p(LOCK_APPLICATION).await?,
            lock_clock: p(LOCK_CLOCK).await?,
            set_clock: p(SET_CLOCK).await?,
            reset,
            insert_application: p(INSERT_APPLICATION).await?,
            update_application: p(UPDATE_APPLICATION).await?,
            payment: p(INSERT_PAYMENT).await?,
        })
    }

    pub fn check<'a>(&self, check: &Check<'a>) -> Bound<'a> {
        match check {
            Check::Version(a) => (
                self.lock_application.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.version - 1),
                ],
            ),
            Check::Clock(id, offset) => (
                self.lock_clock.clone(),
                vec![Box::new(*id) as Param<'a>, Box::new(*offset)],
            ),
        }
    }

    // One arm per sandbox write, each the statement and its parameters.
    pub fn write<'a>(
        &self,
        write: &'a SandboxWrite,
        out: &mut Vec<Bound<'a>>,
    ) -> Result<(), StoreError> {
        match write {
            SandboxWrite::InsertApplication(ApplicationRecord {
                application: a,
                rendered,
            }) => out.push((
                self.insert_application.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.status.as_str()),
                    Box::new(a.version),
                    Box::new(unix_ms(a.created_at)),
                    Box::new(json(a)?),
                    Box::new(rendered.as_str()),
                    Box::new(a.review_due_at().map(unix_ms)),
                ],
            )),
            SandboxWrite::UpdateApplication(ApplicationRecord {
                application: a,
                rendered,
            }) => out.push((
                self.update_application.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.status.as_str()),
                    Box::new(a.version),
                    Box::new(json(a)?),
                    Box::new(rendered.as_str()),
                    Box::new(a.review_due_at().map(unix_ms)),
                ],
            )),
            SandboxWrite::InsertPayment(p) => out.push((
                self.payment.clone(),
                vec![
                    Box::new(p.id.as_str()) as Param<'a>,
                    Box::new(p.owner.as_str()),
                    Box::new(p.application_id.as_str()),
                    Box::new(unix_ms(p.created_at)),
                    Box::new(json(p)?),
                ],
            )),
            SandboxWrite::SetClock {
                owner,
                to_offset_ms,
                ..
            } => out.push((
                self.set_clock.clone(),
                vec![
                    Box::new(owner.as_str()) as Param<'a>,
                    Box::new(*to_offset_ms),
                ],
            )),
            SandboxWrite::ResetOwner { owner, keep_key } => {
                for (i, statement) in self.reset.iter().enumerate() {
                    let mut params = vec![Box::new(owner.as_str()) as Param<'a>];
                    if RESET[i].contains("$2") {
                        params.push(Box::new(keep_key.as_deref()));
                    }
                    out.push((statement.clone(), params));
                }
            }
        }
        Ok(())
    }
}
