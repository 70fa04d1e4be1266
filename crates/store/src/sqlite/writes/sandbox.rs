//! The sandbox's writes within a unit of work, on SQLite.

use rusqlite::{Connection, params};

use super::super::{row_keys, rows, unavailable};
use crate::*;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::tenant::Tenant;

/// One sandbox row change; a failed condition is `Conflict`. One arm per
/// write, each its statement and its condition.
pub fn apply(c: &Connection, write: &SandboxWrite) -> Result<(), CommitError> {
    let store = |e: rusqlite::Error| CommitError::from(unavailable(e));
    match write {
        SandboxWrite::InsertApplication(ApplicationRecord {
            application: app,
            rendered,
        }) => {
            c.prepare_cached(shared!(row_keys::sandbox::INSERT_APPLICATION))
                .and_then(|mut s| {
                    let body = rows::to_json(app)?;
                    let review_due = app.review_due_at().map(unix_ms);
                    s.execute(params![
                        row_keys::row_key(app.id.as_str()),
                        app.id.as_str(),
                        app.owner.as_str(),
                        app.status.as_str(),
                        app.version,
                        unix_ms(app.created_at),
                        body,
                        rendered,
                        review_due
                    ])
                })
                .map_err(store)?;
        }
        SandboxWrite::UpdateApplication(ApplicationRecord {
            application: app,
            rendered,
        }) => {
            let changed = c
                .prepare_cached(
                    "UPDATE applications SET status = ?3, version = ?4, body = ?5, rendered = ?6, review_due_ms = ?7
                     WHERE id = ?1 AND owner = ?2 AND version = ?4 - 1",
                )
                .and_then(|mut s| {
                    let body = rows::to_json(app)?;
                    s.execute(params![
                        app.id.as_str(),
                        app.owner.as_str(),
                        app.status.as_str(),
                        app.version,
                        body,
                        rendered,
                        app.review_due_at().map(unix_ms)
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        SandboxWrite::InsertPayment(p) => {
            c.prepare_cached(shared!(crate::sql::sandbox::PAYMENTS_INSERT))
                .and_then(|mut s| {
                    s.execute(params![
                        p.id.as_str(),
                        p.owner.as_str(),
                        p.application_id.as_str(),
                        unix_ms(p.created_at),
                        rows::to_json(p)?
                    ])
                })
                .map_err(store)?;
        }
        SandboxWrite::SetClock {
            owner,
            from_offset_ms,
            to_offset_ms,
        } => {
            let mut changed = c
                .prepare_cached(
                    "UPDATE test_clocks SET clock_offset_ms = ?3 WHERE owner = ?1 AND clock_offset_ms = ?2",
                )
                .and_then(|mut s| s.execute(params![owner.as_str(), from_offset_ms, to_offset_ms]))
                .map_err(store)?;
            // A clock never moved has no row yet.
            if changed == 0 && *from_offset_ms == 0 {
                changed = c
                    .prepare_cached(
                        "INSERT INTO test_clocks (owner, clock_offset_ms) VALUES (?1, ?2)
                         ON CONFLICT (owner) DO NOTHING",
                    )
                    .and_then(|mut s| s.execute(params![owner.as_str(), to_offset_ms]))
                    .map_err(store)?;
            }
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        SandboxWrite::ResetOwner { owner, keep_key } => {
            reset(c, owner, keep_key.as_deref()).map_err(store)?
        }
    }
    Ok(())
}

/// Everything the owner has in the sandbox goes, in one savepoint with the
/// reset's own idempotency record; its clock goes back to zero.
fn reset(c: &Connection, owner: &Tenant, keep_key: Option<&str>) -> rusqlite::Result<()> {
    for table in [
        "deliveries",
        "payments",
        "applications",
        "events",
        "webhook_endpoints",
        "webhook_endpoint_counts",
    ] {
        c.prepare_cached(&format!("DELETE FROM {table} WHERE owner = ?1"))?
            .execute([owner.as_str()])?;
    }
    for table in ["idempotency_keys", "idempotency_index"] {
        c.prepare_cached(&format!(
            "DELETE FROM {table} WHERE owner = ?1 AND key IS NOT ?2"
        ))?
        .execute(params![owner.as_str(), keep_key])?;
    }
    c.prepare_cached(shared!(crate::sql::sandbox::RESET_CLOCK))?
        .execute([owner.as_str()])?;
    Ok(())
}
