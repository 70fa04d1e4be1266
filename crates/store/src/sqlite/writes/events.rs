//! The events context's writes within a unit of work, on SQLite.

use rusqlite::{Connection, params};

use super::super::{rows, unavailable};
use crate::*;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::sandbox::events::Event;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, Subscription, recipients};

/// One events-context row change; a failed condition is `Conflict`.
pub fn apply(c: &Connection, write: &EventWrite) -> Result<(), CommitError> {
    let store = |e: rusqlite::Error| CommitError::from(unavailable(e));
    match write {
        EventWrite::InsertEndpoint {
            record: r,
            max_per_owner,
        } => {
            let e = &r.endpoint;
            let slot = c
                .prepare_cached(shared!(crate::sql::events::TAKE_ENDPOINT_SLOT))
                .and_then(|mut s| s.execute(params![e.owner.as_str(), max_per_owner]))
                .map_err(store)?;
            if slot == 0 {
                return Err(CommitError::Conflict);
            }
            let status = e.status.as_str();
            c.prepare_cached(shared!(crate::sql::events::WEBHOOK_ENDPOINTS_INSERT))
                .and_then(|mut s| {
                    s.execute(params![
                        e.id.as_str(),
                        e.owner.as_str(),
                        status,
                        rows::to_json(&e.enabled_events)?,
                        r.sealed_secret,
                        unix_ms(e.created_at),
                        rows::to_json(e)?
                    ])
                })
                .map_err(store)?;
        }
        EventWrite::InsertEvent(event) => insert_event(c, event).map_err(store)?,
        EventWrite::QueueDeliveries {
            event_id,
            owner,
            endpoint_ids,
            at_ms,
        } => {
            let mut insert = c
                .prepare_cached(shared!(crate::sql::events::QUEUE_DELIVERY))
                .map_err(store)?;
            for endpoint_id in endpoint_ids {
                insert
                    .execute(params![event_id, endpoint_id, owner.as_str(), at_ms])
                    .map_err(store)?;
            }
        }
        EventWrite::UpdateEndpoint(e) => {
            let changed = c
                .prepare_cached(shared!(crate::sql::events::UPDATE_ENDPOINT))
                .and_then(|mut s| {
                    s.execute(params![
                        e.id.as_str(),
                        e.owner.as_str(),
                        rows::to_json(&e.enabled_events)?,
                        rows::to_json(e)?
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        EventWrite::DeleteEndpoint { id, owner } => {
            let deleted = c
                .prepare_cached(shared!(crate::sql::events::DELETE_ENDPOINT))
                .and_then(|mut s| s.execute(params![id, owner.as_str()]))
                .map_err(store)?;
            if deleted == 0 {
                return Err(CommitError::Conflict);
            }
            for (sql, key) in [
                (
                    shared!(crate::sql::events::FREE_ENDPOINT_SLOT),
                    owner.as_str(),
                ),
                (
                    shared!(crate::sql::events::END_DELIVERIES_OF_DELETED_ENDPOINT),
                    id.as_str(),
                ),
            ] {
                c.prepare_cached(sql)
                    .and_then(|mut s| s.execute([key]))
                    .map_err(store)?;
            }
        }
        EventWrite::RetryDelivery {
            id,
            owner,
            due_ms,
            at_ms,
        } => {
            c.prepare_cached(shared!(crate::sql::jobs::RETRY_FAILED_DELIVERY))
                .and_then(|mut s| s.execute(params![id, owner.as_str(), due_ms, at_ms]))
                .map_err(store)?;
        }
        EventWrite::RotateEndpointSecret {
            id,
            owner,
            sealed_secret,
            previous_expires_at_ms,
        } => {
            let changed = c
                .prepare_cached(shared!(crate::sql::events::ROTATE_ENDPOINT_SECRET))
                .and_then(|mut s| {
                    s.execute(params![
                        id,
                        owner.as_str(),
                        sealed_secret,
                        previous_expires_at_ms
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        EventWrite::DisableFailingEndpoint {
            endpoint: e,
            failing_since_ms,
        } => {
            let changed = c
                .prepare_cached(shared!(crate::sql::events::DISABLE_FAILING_ENDPOINT))
                .and_then(|mut s| {
                    let body = rows::to_json(e)?;
                    s.execute(params![
                        e.id.as_str(),
                        e.owner.as_str(),
                        failing_since_ms,
                        body
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
            c.prepare_cached(shared!(crate::sql::events::END_DELIVERIES_OF_ENDPOINT))
                .and_then(|mut s| s.execute([e.id.as_str()]))
                .map_err(store)?;
        }
        EventWrite::SetEndpointStatus { endpoint: e, from } => {
            // A change of status starts the endpoint's health afresh.
            let changed = c
                .prepare_cached(
                    "UPDATE webhook_endpoints SET status = ?4, body = ?5, enabled_events = ?6, failing_since_ms = NULL
                     WHERE id = ?1 AND owner = ?2 AND status = ?3",
                )
                .and_then(|mut s| {
                    let body = rows::to_json(e)?;
                    let events = rows::to_json(&e.enabled_events)?;
                    s.execute(params![
                        e.id.as_str(),
                        e.owner.as_str(),
                        from.as_str(),
                        e.status.as_str(),
                        body,
                        events
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
            if e.status == EndpointStatus::Disabled {
                c.prepare_cached(shared!(crate::sql::events::END_DELIVERIES_OF_ENDPOINT))
                    .and_then(|mut s| s.execute([e.id.as_str()]))
                    .map_err(store)?;
            }
        }
    }
    Ok(())
}

/// The event and its outbox rows commit together: an event is never stored
/// without the deliveries it owes.
fn insert_event(c: &Connection, event: &Event) -> rusqlite::Result<()> {
    let at = unix_ms(event.created_at);
    let kind = event.event_type.as_str();
    c.prepare_cached(
        "INSERT INTO events (id, owner, type, created_at_ms, body) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        event.id.as_str(),
        event.owner.as_str(),
        kind,
        at,
        event.body
    ])?;
    let subscriptions: Vec<Subscription> = c
        .prepare_cached(
            "SELECT id, status, enabled_events FROM webhook_endpoints WHERE owner = ?1",
        )?
        .query_map([event.owner.as_str()], |r| {
            let enabled_events: String = r.get(2)?;
            Ok(Subscription {
                endpoint_id: r.get(0)?,
                status: rows::endpoint_status(&r.get::<_, String>(1)?)?,
                enabled_events: rows::from_json(&enabled_events)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let mut insert = c.prepare_cached(
        "INSERT INTO deliveries (event_id, endpoint_id, owner, state, attempt, first_due_ms, due_ms, updated_at_ms)
         VALUES (?1, ?2, ?3, 'pending', 1, ?4, ?4, ?4)",
    )?;
    for endpoint_id in recipients(&subscriptions, kind) {
        insert.execute(params![
            event.id.as_str(),
            endpoint_id,
            event.owner.as_str(),
            at
        ])?;
    }
    Ok(())
}
