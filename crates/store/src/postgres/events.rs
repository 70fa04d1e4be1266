//! A batch's events on PostgreSQL, stored after its other writes in one
//! statement that numbers them in each owner's sequence, with the
//! deliveries the domain chose for each from its owner's subscriptions.

use std::collections::HashMap;

use deadpool_postgres::Transaction;
use tokio_postgres::types::ToSql;

use super::reads::get;
use crate::error::StoreError;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::sandbox::events::Event;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, Subscription, recipients};

/// Every event a batch commits, in one statement, after its jobs: each
/// owner's sequence head advances once by the batch's count for that owner
/// (rows locked in owner order, so batches never wait on each other in a
/// cycle), the events take the numbers in job order, and each gets one outbox
/// row per recipient the domain chose (`$6`, `$7`: event id, endpoint id).
/// The head rows stay locked until COMMIT, so an owner's events become
/// visible in sequence order: a cursor never passes an event that commits
/// later. Taking them last keeps that lock to one statement and the commit.
const INSERT_EVENTS: &str = "WITH batch AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[])
             WITH ORDINALITY AS b (id, owner, type, at_ms, body, ord)),
     heads AS (
         INSERT INTO event_heads AS h (owner, last_seq)
         SELECT owner, count(*) FROM batch GROUP BY owner ORDER BY owner
         ON CONFLICT (owner) DO UPDATE SET last_seq = h.last_seq + excluded.last_seq
         RETURNING owner, last_seq),
     stored AS (
         INSERT INTO events (owner, seq, id, type, created_at_ms, body)
         SELECT b.owner,
                h.last_seq - count(*) OVER w + row_number() OVER (w ORDER BY b.ord),
                b.id, b.type, b.at_ms, b.body
         FROM batch b JOIN heads h ON h.owner = b.owner
         WINDOW w AS (PARTITION BY b.owner))
     INSERT INTO deliveries (event_id, endpoint_id, owner, state, attempt, first_due_ms, due_ms, updated_at_ms)
     SELECT b.id, r.endpoint_id, b.owner, 'pending', 1, b.at_ms, b.at_ms, b.at_ms
     FROM unnest($6::text[], $7::text[]) AS r (event_id, endpoint_id)
     JOIN batch b ON b.id = r.event_id";

/// The subscriptions of every endpoint of the given owners.
const SUBSCRIPTIONS: &str =
    "SELECT owner, id, status, enabled_events FROM webhook_endpoints WHERE owner = ANY ($1)";

/// The subscriptions of the events' owners (owner, id, status, enabled
/// events). Sent after the batch's writes on the same connection, so it
/// sees endpoints the batch itself created or disabled, and rides in the
/// same pipeline: no round trip of its own.
pub(crate) async fn subscriptions(
    tx: &Transaction<'_>,
    events: &[&Event],
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    let mut owners: Vec<&str> = events.iter().map(|e| e.owner.as_str()).collect();
    owners.sort_unstable();
    owners.dedup();
    let statement = tx.prepare_cached(SUBSCRIPTIONS).await?;
    tx.query(&statement, &[&owners]).await
}

/// Stores the events with the deliveries `rows` (their owners'
/// subscriptions) owe.
pub(crate) async fn insert(
    tx: &Transaction<'_>,
    events: &[&Event],
    rows: &[tokio_postgres::Row],
) -> Result<(), StoreError> {
    if events.is_empty() {
        return Ok(());
    }
    let (event_ids, endpoint_ids) = recipients_of(rows, events)?;
    let ids: Vec<&str> = events.iter().map(|e| e.id.as_str()).collect();
    let owners: Vec<&str> = events.iter().map(|e| e.owner.as_str()).collect();
    let types: Vec<&str> = events.iter().map(|e| e.event_type.as_str()).collect();
    let at: Vec<i64> = events.iter().map(|e| unix_ms(e.created_at)).collect();
    let bodies: Vec<&str> = events.iter().map(|e| e.body.as_str()).collect();
    let statement = tx
        .prepare_cached(INSERT_EVENTS)
        .await
        .map_err(super::errors::db)?;
    let params: [&(dyn ToSql + Sync); 7] = [
        &ids,
        &owners,
        &types,
        &at,
        &bodies,
        &event_ids,
        &endpoint_ids,
    ];
    tx.execute(&statement, &params)
        .await
        .map_err(super::errors::db)?;
    Ok(())
}

/// The domain's choice of recipients for each event, from its owners'
/// subscription rows (owner, id, status, enabled events): event ids and
/// endpoint ids, pairwise.
fn recipients_of<'a>(
    rows: &[tokio_postgres::Row],
    events: &[&'a Event],
) -> Result<(Vec<&'a str>, Vec<String>), StoreError> {
    let mut by_owner: HashMap<String, Vec<Subscription>> = HashMap::new();
    for row in rows {
        let status: String = get(row, 2)?;
        let status = EndpointStatus::parse(&status).ok_or_else(|| {
            StoreError::Internal(format!("unknown stored endpoint status {status}"))
        })?;
        by_owner
            .entry(get(row, 0)?)
            .or_default()
            .push(Subscription {
                endpoint_id: get(row, 1)?,
                status,
                enabled_events: get(row, 3)?,
            });
    }
    let (mut event_ids, mut endpoint_ids) = (Vec::new(), Vec::new());
    for event in events {
        let Some(subscriptions) = by_owner.get(event.owner.as_str()) else {
            continue;
        };
        for endpoint in recipients(subscriptions, event.event_type.as_str()) {
            event_ids.push(event.id.as_str());
            endpoint_ids.push(endpoint.to_owned());
        }
    }
    Ok((event_ids, endpoint_ids))
}
