//! The sandbox's writes: applications (rank 10), test clocks (rank 11),
//! payments and an owner's reset.

use lendhub_domain::clock::unix_ms;

use super::{Check, Unit, json, read_check};
use crate::error::StoreError;
use crate::exec::{Dialect, Lock, Statement};
use crate::sql::sandbox as sql;
use crate::*;

/// The application, still at the version the update follows.
const APPLICATION_AT: Lock =
    lock!("SELECT 1 FROM applications WHERE id = $1 AND owner = $2 AND version = $3");

const UPDATE_APPLICATION: &str = "UPDATE applications
     SET status = $3, version = $4, body = $5, rendered = $6, review_due_ms = $7
     WHERE id = $1 AND owner = $2 AND version = $4 - 1";

/// The owner's clock, still at the offset the advance was computed from.
/// A clock never moved has no row: advancing it from zero creates the row
/// (on PostgreSQL locked, as inserted, so a concurrent insert waits for
/// this one and then finds the offset changed).
const CLOCK_AT: &str = "INSERT INTO test_clocks (owner, clock_offset_ms)
     SELECT CAST($1 AS TEXT), 0
      WHERE CAST($2 AS BIGINT) = 0
         OR EXISTS (SELECT 1 FROM test_clocks WHERE owner = CAST($1 AS TEXT))
     ON CONFLICT (owner) DO UPDATE SET clock_offset_ms = test_clocks.clock_offset_ms
         WHERE test_clocks.clock_offset_ms = CAST($2 AS BIGINT)";

/// Once its check holds.
const SET_CLOCK: &str = "UPDATE test_clocks SET clock_offset_ms = $2 WHERE owner = $1";

/// A reset, in order: what refers to events, endpoints and applications
/// goes first. The reset's own key stays, so repeating the reset replays
/// its answer instead of wiping what came after it. (On PostgreSQL the
/// owner's event head stays too, so its sequence never reuses a number.)
const RESET: [&str; 8] = [
    "DELETE FROM deliveries WHERE owner = $1",
    "DELETE FROM payments WHERE owner = $1",
    "DELETE FROM applications WHERE owner = $1",
    "DELETE FROM events WHERE owner = $1",
    "DELETE FROM webhook_endpoints WHERE owner = $1",
    "DELETE FROM webhook_endpoint_counts WHERE owner = $1",
    "DELETE FROM idempotency_keys WHERE owner = $1 AND key IS DISTINCT FROM $2",
    sql::RESET_CLOCK,
];

pub(super) fn plan(write: &SandboxWrite, d: &Dialect, unit: &mut Unit) -> Result<(), StoreError> {
    match write {
        SandboxWrite::InsertApplication(ApplicationRecord {
            application: a,
            rendered,
        }) => {
            let (sql, values) = d.keyed_insert(
                crate::sqlite::row_keys::sandbox::INSERT_APPLICATION,
                sql::APPLICATIONS_INSERT,
                values![
                    a.id.as_str(),
                    a.owner.as_str(),
                    a.status.as_str(),
                    a.version,
                    unix_ms(a.created_at),
                    json(a)?,
                    rendered.as_str(),
                    a.review_due_at().map(unix_ms)
                ],
            );
            unit.step(sql, values);
        }
        SandboxWrite::UpdateApplication(ApplicationRecord {
            application: a,
            rendered,
        }) => {
            unit.check(read_check(
                10,
                a.id.as_str(),
                Some("application"),
                Statement::read(
                    d.lock(&APPLICATION_AT),
                    values![a.id.as_str(), a.owner.as_str(), a.version - 1],
                ),
            ));
            unit.step(
                UPDATE_APPLICATION,
                values![
                    a.id.as_str(),
                    a.owner.as_str(),
                    a.status.as_str(),
                    a.version,
                    json(a)?,
                    rendered.as_str(),
                    a.review_due_at().map(unix_ms)
                ],
            );
        }
        SandboxWrite::InsertPayment(p) => unit.step(
            sql::PAYMENTS_INSERT,
            values![
                p.id.as_str(),
                p.owner.as_str(),
                p.application_id.as_str(),
                unix_ms(p.created_at),
                json(p)?
            ],
        ),
        SandboxWrite::SetClock {
            owner,
            from_offset_ms,
            to_offset_ms,
        } => {
            unit.check(Check {
                rank: (11, owner.to_string(), String::new()),
                row: Some(("clock", owner.to_string())),
                test: Statement::change(CLOCK_AT, values![owner.as_str(), *from_offset_ms]),
                release: None,
            });
            unit.step(SET_CLOCK, values![owner.as_str(), *to_offset_ms]);
        }
        SandboxWrite::ResetOwner { owner, keep_key } => {
            for sql in RESET {
                let values = if sql.contains("$2") {
                    values![owner.as_str(), keep_key.as_deref()]
                } else {
                    values![owner.as_str()]
                };
                unit.step(sql, values);
            }
        }
    }
    Ok(())
}
