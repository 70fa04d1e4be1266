//! The unit of work on SQLite (`crate::unit`), run on the writer thread
//! inside its group commit: the set's key is claimed, its checks must each
//! find their one row, then its steps and its events go in. A failed check
//! fails the set alone; the writer's savepoint undoes what it had done.
//! Also retention's prune, which runs on the writer too.

use rusqlite::{Connection, params};

use super::exec::{execute, query};
use super::idempotency::{self, RecentKeys};
use super::{dialect, unavailable};
use crate::error::CommitError;
use crate::exec::{Statement, from_json};
use crate::unit::Unit;
use crate::*;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::sandbox::events::Event;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, Subscription, recipients};

pub fn apply(
    c: &Connection,
    recent: &RecentKeys,
    set: &WriteSet,
    unit: &Unit,
) -> Result<(), CommitError> {
    let store = |e: rusqlite::Error| CommitError::from(unavailable(e));
    if let Some(record) = &set.idempotency {
        idempotency::claim(c, recent, record)?;
    }
    for check in &unit.checks {
        if touched(c, &check.test).map_err(store)? != 1 {
            return Err(CommitError::Conflict);
        }
    }
    for step in &unit.steps {
        execute(c, step.sql, &step.bound()).map_err(store)?;
    }
    for write in &set.writes {
        match write {
            Write::Events(EventWrite::InsertEvent(event)) => {
                insert_event(c, event).map_err(CommitError::from)?
            }
            // The index of keys is SQLite's own (`idempotency`).
            Write::Sandbox(SandboxWrite::ResetOwner { owner, keep_key }) => c
                .prepare_cached("DELETE FROM idempotency_index WHERE owner = ?1 AND key IS NOT ?2")
                .and_then(|mut s| s.execute(params![owner.as_str(), keep_key]))
                .map(drop)
                .map_err(store)?,
            _ => {}
        }
    }
    Ok(())
}

/// How many rows a check's statement read or changed.
fn touched(c: &Connection, check: &Statement) -> rusqlite::Result<u64> {
    let params = check.bound();
    if check.reads {
        Ok(query(c, check.sql, &params)?.len() as u64)
    } else {
        execute(c, check.sql, &params)
    }
}

/// The event and its outbox rows commit together: an event is never stored
/// without the deliveries it owes, to the endpoints subscribed once the
/// set's other writes are in.
fn insert_event(c: &Connection, event: &Event) -> Result<(), crate::error::StoreError> {
    let store = unavailable;
    let at = unix_ms(event.created_at);
    let kind = event.event_type.as_str();
    c.prepare_cached(
        "INSERT INTO events (id, owner, type, created_at_ms, body) VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .and_then(|mut s| {
        s.execute(params![
            event.id.as_str(),
            event.owner.as_str(),
            kind,
            at,
            event.body
        ])
    })
    .map_err(store)?;
    let subscriptions = query(
        c,
        "SELECT id, status, enabled_events FROM webhook_endpoints WHERE owner = $1",
        &crate::params![event.owner.as_str()],
    )
    .map_err(store)?
    .iter()
    .map(|r| {
        let status: String = r.get(1)?;
        Ok(Subscription {
            endpoint_id: r.get(0)?,
            status: EndpointStatus::parse(&status).ok_or_else(|| {
                crate::error::StoreError::Internal(format!(
                    "unknown stored endpoint status {status}"
                ))
            })?,
            enabled_events: from_json(&r.get::<String>(2)?)?,
        })
    })
    .collect::<Result<Vec<_>, crate::error::StoreError>>()?;
    let mut insert = c
        .prepare_cached(
            "INSERT INTO deliveries (event_id, endpoint_id, owner, state, attempt, first_due_ms, due_ms, updated_at_ms)
             VALUES (?1, ?2, ?3, 'pending', 1, ?4, ?4, ?4)",
        )
        .map_err(store)?;
    for endpoint_id in recipients(&subscriptions, kind) {
        insert
            .execute(params![
                event.id.as_str(),
                endpoint_id,
                event.owner.as_str(),
                at
            ])
            .map_err(store)?;
    }
    Ok(())
}

pub fn prune(c: &Connection, r: &Retention) -> rusqlite::Result<u64> {
    let (idempotency_before_ms, tokens_expired_before_ms) =
        (r.idempotency_before_ms, r.tokens_expired_before_ms);
    // Expired on the service clock, or sooner on an owner's clock that runs
    // ahead; their index entries first.
    const AHEAD: &str = "owner IN (SELECT owner FROM test_clocks WHERE clock_offset_ms > 0)
           AND created_at_ms - (SELECT clock_offset_ms FROM test_clocks WHERE owner = idempotency_keys.owner) < ?1";
    idempotency::unindex(c, "created_at_ms < ?1", idempotency_before_ms)?;
    idempotency::unindex(c, AHEAD, idempotency_before_ms)?;
    let keys = c.execute(&dialect(sql::PRUNE_IDEMPOTENCY), [idempotency_before_ms])?
        + c.execute(
            &format!("DELETE FROM idempotency_keys WHERE {AHEAD}"),
            [idempotency_before_ms],
        )?;
    let revocations = c.execute(&dialect(sql::PRUNE_REVOCATIONS), [tokens_expired_before_ms])?;
    let events = c.execute(&dialect(sql::PRUNE_EVENTS), [r.events_before_ms])?
        + c.execute(&dialect(sql::PRUNE_EVENTS_AHEAD), [r.events_before_ms])?
        + c.execute(&dialect(sql::PRUNE_DELIVERIES), [r.events_before_ms])?;
    let journeys = c.execute(&dialect(sql::PRUNE_JOURNEYS), [r.journeys_before_ms])?
        + c.execute(
            &dialect(sql::PRUNE_BANK_CONNECTIONS),
            [r.journeys_before_ms],
        )?;
    Ok((keys + revocations + events + journeys) as u64)
}
