//! The events context's checks and writes within a group commit: webhook
//! endpoints, and the events with the deliveries they owe.

use std::collections::HashMap;

use deadpool_postgres::Transaction;
use tokio_postgres::Statement;

use super::{Bound, Needs, Param, Rank, json};
use crate::error::StoreError;
use crate::postgres::errors::db;
use crate::postgres::reads::get;
use crate::*;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::sandbox::events::Event;
use lendhub_domain::webhooks::endpoint::{
    EndpointStatus, Subscription, WebhookEndpoint, recipients,
};

/// One row, locked until commit, if the endpoint still has the status the
/// change was computed from.
const LOCK_ENDPOINT: &str = "SELECT 1 FROM webhook_endpoints
     WHERE id = $1 AND owner = $2 AND status = $3 FOR UPDATE";

/// One row, locked until commit, if the endpoint still exists.
const LOCK_EXISTING_ENDPOINT: &str =
    "SELECT 1 FROM webhook_endpoints WHERE id = $1 AND owner = $2 FOR UPDATE";

/// Takes a slot (the owner's count row, locked until commit); a job that
/// then fails another check gives it back (`FREE_SLOT`).
const TAKE_SLOT: &str = crate::sql::events::TAKE_ENDPOINT_SLOT;
const FREE_SLOT: &str = crate::sql::events::FREE_ENDPOINT_SLOT;

/// One row, locked until commit, if the endpoint is still enabled and has
/// been failing since the given moment or earlier.
const LOCK_FAILING_ENDPOINT: &str = "SELECT 1 FROM webhook_endpoints
     WHERE id = $1 AND owner = $2 AND status = 'enabled' AND failing_since_ms <= $3 FOR UPDATE";

/// The row is locked by this transaction's check. A change of status starts
/// the endpoint's health afresh.
const SET_ENDPOINT_STATUS: &str = "UPDATE webhook_endpoints
     SET status = $3, body = $4, enabled_events = $5, failing_since_ms = NULL
     WHERE id = $1 AND owner = $2";

/// A disabled endpoint is not attempted: its pending deliveries end.
const END_DELIVERIES: &str = crate::sql::events::END_DELIVERIES_OF_ENDPOINT;

const INSERT_ENDPOINT: &str = crate::sql::events::WEBHOOK_ENDPOINTS_INSERT;

/// Every event a batch commits, in one statement, after its jobs: each
/// owner's sequence head advances once by the batch's count for that owner
/// (rows locked in owner order, so batches never wait on each other in a
/// cycle), the events take the numbers in job order, and each gets one outbox
/// row per recipient the domain chose (`$6`, `$7`: event id, endpoint id). The head rows stay locked until COMMIT, so an owner's events become
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

/// An events-context write's precondition on a webhook endpoint.
pub(crate) enum Check<'a> {
    /// Still has this status.
    Status(&'a WebhookEndpoint, EndpointStatus),
    /// Still enabled, failing since this moment or earlier.
    Failing(&'a WebhookEndpoint, i64),
    /// Still exists (id, owner).
    Exists(&'a str, &'a str),
    /// A slot of the owner's endpoint limit, taken.
    Slot(&'a str, u32),
}

impl Check<'_> {
    /// Ranks 19 and 20 of the lock order (`super`).
    pub fn rank(&self) -> Rank<'_> {
        match self {
            Check::Status(e, _) | Check::Failing(e, _) => (20, e.id.as_str(), ""),
            Check::Exists(id, _) => (20, id, ""),
            Check::Slot(owner, _) => (19, owner, ""),
        }
    }
}

pub(crate) fn needs(write: &EventWrite) -> Option<Needs<'_, Check<'_>>> {
    match write {
        EventWrite::SetEndpointStatus { endpoint, from } => Some(Needs {
            check: Check::Status(endpoint, *from),
            row: Some(("endpoint", endpoint.id.as_str())),
        }),
        EventWrite::DisableFailingEndpoint {
            endpoint,
            failing_since_ms,
        } => Some(Needs {
            check: Check::Failing(endpoint, *failing_since_ms),
            row: Some(("endpoint", endpoint.id.as_str())),
        }),
        EventWrite::UpdateEndpoint(e) => Some(Needs {
            check: Check::Exists(e.id.as_str(), e.owner.as_str()),
            row: Some(("endpoint", e.id.as_str())),
        }),
        EventWrite::DeleteEndpoint { id, owner }
        | EventWrite::RotateEndpointSecret { id, owner, .. } => Some(Needs {
            check: Check::Exists(id, owner.as_str()),
            row: Some(("endpoint", id)),
        }),
        // Slots are counted, not compared: two registrations in one batch
        // each take their own.
        EventWrite::InsertEndpoint {
            record,
            max_per_owner,
        } => Some(Needs {
            check: Check::Slot(record.endpoint.owner.as_str(), *max_per_owner),
            row: None,
        }),
        EventWrite::InsertEvent(_)
        | EventWrite::QueueDeliveries { .. }
        | EventWrite::RetryDelivery { .. } => None,
    }
}

/// The deliveries a batch's events owe, as the domain chose them: event ids
/// and endpoint ids, pairwise.
pub(crate) type Recipients<'a> = (Vec<&'a str>, Vec<String>);

pub(crate) struct Statements {
    lock_endpoint: Statement,
    lock_failing_endpoint: Statement,
    lock_existing_endpoint: Statement,
    take_slot: Statement,
    free_slot: Statement,
    update_endpoint: Statement,
    delete_endpoint: Statement,
    end_deleted_deliveries: Statement,
    rotate_secret: Statement,
    retry_delivery: Statement,
    queue_delivery: Statement,
    set_endpoint_status: Statement,
    end_deliveries: Statement,
    endpoint: Statement,
    events: Statement,
    subscriptions: Statement,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        let p = |sql| async move { tx.prepare_cached(sql).await.map_err(db) };
        Ok(Self {
            lock_endpoint: p(LOCK_ENDPOINT).await?,
            lock_failing_endpoint: p(LOCK_FAILING_ENDPOINT).await?,
            lock_existing_endpoint: p(LOCK_EXISTING_ENDPOINT).await?,
            take_slot: p(TAKE_SLOT).await?,
            free_slot: p(FREE_SLOT).await?,
            update_endpoint: p(crate::sql::events::UPDATE_ENDPOINT).await?,
            delete_endpoint: p(crate::sql::events::DELETE_ENDPOINT).await?,
            end_deleted_deliveries: p(crate::sql::events::END_DELIVERIES_OF_DELETED_ENDPOINT)
                .await?,
            rotate_secret: p(crate::sql::events::ROTATE_ENDPOINT_SECRET).await?,
            retry_delivery: p(crate::sql::jobs::RETRY_FAILED_DELIVERY).await?,
            queue_delivery: p(crate::sql::events::QUEUE_DELIVERY).await?,
            set_endpoint_status: p(SET_ENDPOINT_STATUS).await?,
            end_deliveries: p(END_DELIVERIES).await?,
            endpoint: p(INSERT_ENDPOINT).await?,
            events: p(INSERT_EVENTS).await?,
            subscriptions: p(SUBSCRIPTIONS).await?,
        })
    }

    pub fn check<'a>(&self, check: &Check<'a>) -> Bound<'a> {
        match check {
            Check::Status(e, from) => (
                self.lock_endpoint.clone(),
                vec![
                    Box::new(e.id.as_str()) as Param<'a>,
                    Box::new(e.owner.as_str()),
                    Box::new(from.as_str()),
                ],
            ),
            Check::Failing(e, since) => (
                self.lock_failing_endpoint.clone(),
                vec![
                    Box::new(e.id.as_str()) as Param<'a>,
                    Box::new(e.owner.as_str()),
                    Box::new(*since),
                ],
            ),
            Check::Exists(id, owner) => (
                self.lock_existing_endpoint.clone(),
                vec![Box::new(*id) as Param<'a>, Box::new(*owner)],
            ),
            Check::Slot(owner, max) => (
                self.take_slot.clone(),
                vec![Box::new(*owner) as Param<'a>, Box::new(i64::from(*max))],
            ),
        }
    }

    /// What undoes a check that passed, when its job fails another.
    pub fn release<'a>(&self, check: &Check<'a>) -> Option<Bound<'a>> {
        match check {
            Check::Slot(owner, _) => {
                Some((self.free_slot.clone(), vec![Box::new(*owner) as Param<'a>]))
            }
            _ => None,
        }
    }

    pub fn write<'a>(
        &self,
        write: &'a EventWrite,
        out: &mut Vec<Bound<'a>>,
    ) -> Result<(), StoreError> {
        match write {
            // Stored per batch: see `insert_events`.
            EventWrite::InsertEvent(_) => {}
            EventWrite::InsertEndpoint { record: r, .. } => {
                let e = &r.endpoint;
                out.push((
                    self.endpoint.clone(),
                    vec![
                        Box::new(e.id.as_str()) as Param<'a>,
                        Box::new(e.owner.as_str()),
                        Box::new(e.status.as_str()),
                        Box::new(&e.enabled_events[..]),
                        Box::new(r.sealed_secret.as_slice()),
                        Box::new(unix_ms(e.created_at)),
                        Box::new(json(e)?),
                    ],
                ));
            }
            EventWrite::QueueDeliveries {
                event_id,
                owner,
                endpoint_ids,
                at_ms,
            } => {
                for endpoint_id in endpoint_ids {
                    out.push((
                        self.queue_delivery.clone(),
                        vec![
                            Box::new(event_id.as_str()) as Param<'a>,
                            Box::new(endpoint_id.as_str()),
                            Box::new(owner.as_str()),
                            Box::new(*at_ms),
                        ],
                    ));
                }
            }
            EventWrite::UpdateEndpoint(e) => out.push((
                self.update_endpoint.clone(),
                vec![
                    Box::new(e.id.as_str()) as Param<'a>,
                    Box::new(e.owner.as_str()),
                    Box::new(&e.enabled_events[..]),
                    Box::new(json(e)?),
                ],
            )),
            EventWrite::DeleteEndpoint { id, owner } => {
                out.push((
                    self.delete_endpoint.clone(),
                    vec![Box::new(id.as_str()) as Param<'a>, Box::new(owner.as_str())],
                ));
                out.push((
                    self.free_slot.clone(),
                    vec![Box::new(owner.as_str()) as Param<'a>],
                ));
                out.push((
                    self.end_deleted_deliveries.clone(),
                    vec![Box::new(id.as_str()) as Param<'a>],
                ));
            }
            EventWrite::RetryDelivery {
                id,
                owner,
                due_ms,
                at_ms,
            } => out.push((
                self.retry_delivery.clone(),
                vec![
                    Box::new(*id) as Param<'a>,
                    Box::new(owner.as_str()),
                    Box::new(*due_ms),
                    Box::new(*at_ms),
                ],
            )),
            EventWrite::RotateEndpointSecret {
                id,
                owner,
                sealed_secret,
                previous_expires_at_ms,
            } => out.push((
                self.rotate_secret.clone(),
                vec![
                    Box::new(id.as_str()) as Param<'a>,
                    Box::new(owner.as_str()),
                    Box::new(sealed_secret.as_slice()),
                    Box::new(*previous_expires_at_ms),
                ],
            )),
            EventWrite::SetEndpointStatus { endpoint: e, .. }
            | EventWrite::DisableFailingEndpoint { endpoint: e, .. } => {
                out.push((
                    self.set_endpoint_status.clone(),
                    vec![
                        Box::new(e.id.as_str()) as Param<'a>,
                        Box::new(e.owner.as_str()),
                        Box::new(e.status.as_str()),
                        Box::new(json(e)?),
                        Box::new(&e.enabled_events[..]),
                    ],
                ));
                if e.status == EndpointStatus::Disabled {
                    out.push((
                        self.end_deliveries.clone(),
                        vec![Box::new(e.id.as_str()) as Param<'a>],
                    ));
                }
            }
        }
        Ok(())
    }

    /// The subscriptions of the events' owners (owner, id, status, enabled
    /// events). Sent after the batch's writes on the same connection, so it
    /// sees endpoints the batch itself created or disabled, and rides in the
    /// same pipeline: no round trip of its own.
    pub async fn subscriptions(
        &self,
        tx: &Transaction<'_>,
        events: &[&Event],
    ) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
        let mut owners: Vec<&str> = events.iter().map(|e| e.owner.as_str()).collect();
        owners.sort_unstable();
        owners.dedup();
        tx.query(&self.subscriptions, &[&owners]).await
    }

    pub fn insert_events<'a>(
        &self,
        events: &[&'a Event],
        (event_ids, endpoint_ids): Recipients<'a>,
    ) -> Option<Bound<'a>> {
        if events.is_empty() {
            return None;
        }
        let ids: Vec<&str> = events.iter().map(|e| e.id.as_str()).collect();
        let owners: Vec<&str> = events.iter().map(|e| e.owner.as_str()).collect();
        let types: Vec<&str> = events.iter().map(|e| e.event_type.as_str()).collect();
        let at: Vec<i64> = events.iter().map(|e| unix_ms(e.created_at)).collect();
        let bodies: Vec<&str> = events.iter().map(|e| e.body.as_str()).collect();
        Some((
            self.events.clone(),
            vec![
                Box::new(ids) as Param<'a>,
                Box::new(owners),
                Box::new(types),
                Box::new(at),
                Box::new(bodies),
                Box::new(event_ids),
                Box::new(endpoint_ids),
            ],
        ))
    }
}

/// The domain's choice of recipients for each event, from its owners'
/// subscription rows (owner, id, status, enabled events).
pub(crate) fn recipients_of<'a>(
    rows: &[tokio_postgres::Row],
    events: &[&'a Event],
) -> Result<Recipients<'a>, StoreError> {
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
