//! Each `Write` as one SQL statement with owned parameters, so a whole group
//! commit can be pipelined: every statement of every job is sent before the
//! first answer is read.

use deadpool_postgres::Transaction;
use tokio_postgres::Statement;
use tokio_postgres::types::ToSql;

use super::errors::{db, internal};
use crate::error::StoreError;
use crate::model::*;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::events::ALL_EVENTS;
use lendhub_domain::webhook::EndpointStatus;

pub(crate) type Param<'a> = Box<dyn ToSql + Sync + Send + 'a>;

const INSERT_IDEMPOTENCY: &str =
    "INSERT INTO idempotency_keys (owner, key, fingerprint, status, body, created_at_ms)
     VALUES ($1, $2, $3, $4, $5, $6)";

const INSERT_APPLICATION: &str =
    "INSERT INTO applications (id, owner, status, version, created_at_ms, body, rendered)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

const UPDATE_APPLICATION: &str = "WITH updated AS (
         UPDATE applications SET status = $3, version = $4, body = $5, rendered = $6
         WHERE id = $1 AND owner = $2 AND version = $4::bigint - 1
         RETURNING 1)
     SELECT lendhub_require(EXISTS (SELECT 1 FROM updated), 'application changed concurrently')";

const INSERT_PAYMENT: &str = "INSERT INTO payments (id, owner, application_id, created_at_ms, body)
     VALUES ($1, $2, $3, $4, $5)";

const INSERT_ENDPOINT: &str = "INSERT INTO webhook_endpoints (id, owner, status, enabled_events, sealed_secret, created_at_ms, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// The event, its place in the owner's sequence (the head row is already
/// locked by this transaction, see `lock_event_heads`) and its outbox rows,
/// in one statement: an event is never stored without the deliveries it owes.
const INSERT_EVENT: &str = "WITH head AS (
         UPDATE event_heads SET last_seq = last_seq + 1 WHERE owner = $2 RETURNING last_seq),
     stored AS (
         INSERT INTO events (owner, seq, id, type, created_at_ms, body)
         SELECT $2, last_seq, $1, $3, $4, $5 FROM head)
     INSERT INTO deliveries (event_id, endpoint_id, owner, state, attempt, first_due_ms, due_ms, updated_at_ms)
     SELECT $1, w.id, $2, 'pending', 1, $4, $4, $4 FROM webhook_endpoints w
     WHERE w.owner = $2 AND w.status = 'enabled'
       AND ($3 = ANY (w.enabled_events) OR $6 = ANY (w.enabled_events))";

/// Conditional on the client, so a revocation committed anywhere wins.
const INSERT_TOKEN: &str = "WITH inserted AS (
         INSERT INTO sandbox_tokens (selector, verifier_hash, client_id, scopes, expires_at_ms, created_at_ms)
         SELECT $1, $2, $3, $4, $5, $6
         WHERE EXISTS (SELECT 1 FROM sandbox_clients WHERE client_id = $3 AND status = 'active')
         RETURNING 1)
     SELECT lendhub_require(EXISTS (SELECT 1 FROM inserted), 'client is not active')";

/// Locks (creating where needed) the sequence heads of the given owners, in
/// sorted order. Every batch takes its heads first and in the same order, so
/// two batches never wait on each other's heads in a cycle.
const LOCK_EVENT_HEADS: &str = "INSERT INTO event_heads (owner, last_seq)
     SELECT owner, 0 FROM unnest($1::text[]) AS owner ORDER BY owner
     ON CONFLICT (owner) DO UPDATE SET last_seq = event_heads.last_seq";

/// The prepared statements a batch uses, cached per connection.
pub(crate) struct Statements {
    idempotency: Statement,
    insert_application: Statement,
    update_application: Statement,
    payment: Statement,
    endpoint: Statement,
    event: Statement,
    token: Statement,
    lock_heads: Statement,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        let p = |sql| async move { tx.prepare_cached(sql).await.map_err(db) };
        Ok(Self {
            idempotency: p(INSERT_IDEMPOTENCY).await?,
            insert_application: p(INSERT_APPLICATION).await?,
            update_application: p(UPDATE_APPLICATION).await?,
            payment: p(INSERT_PAYMENT).await?,
            endpoint: p(INSERT_ENDPOINT).await?,
            event: p(INSERT_EVENT).await?,
            token: p(INSERT_TOKEN).await?,
            lock_heads: p(LOCK_EVENT_HEADS).await?,
        })
    }

    /// The head-locking statement for a batch, if any of its jobs adds events.
    pub fn lock_heads<'a>(&self, sets: &[&'a WriteSet]) -> Option<(Statement, Vec<Param<'a>>)> {
        let mut owners: Vec<&str> = sets
            .iter()
            .flat_map(|s| s.writes.iter())
            .filter_map(|w| match w {
                Write::InsertEvent(e) => Some(e.owner.as_str()),
                _ => None,
            })
            .collect();
        if owners.is_empty() {
            return None;
        }
        owners.sort_unstable();
        owners.dedup();
        Some((self.lock_heads.clone(), vec![Box::new(owners)]))
    }

    /// The statements of one job, in order.
    pub fn job<'a>(
        &self,
        set: &'a WriteSet,
    ) -> Result<Vec<(Statement, Vec<Param<'a>>)>, StoreError> {
        let mut out = Vec::with_capacity(set.writes.len() + 1);
        if let Some(r) = &set.idempotency {
            out.push((
                self.idempotency.clone(),
                vec![
                    Box::new(r.owner.as_str()) as Param<'a>,
                    Box::new(r.key.as_str()),
                    Box::new(&r.fingerprint[..]),
                    Box::new(i32::from(r.status)),
                    Box::new(r.body.as_slice()),
                    Box::new(r.created_at_ms),
                ],
            ));
        }
        for write in &set.writes {
            out.push(self.write(write)?);
        }
        Ok(out)
    }

    fn write<'a>(&self, write: &'a Write) -> Result<(Statement, Vec<Param<'a>>), StoreError> {
        Ok(match write {
            Write::InsertApplication(ApplicationRecord {
                application: a,
                rendered,
            }) => (
                self.insert_application.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.status.as_str()),
                    Box::new(a.version),
                    Box::new(unix_ms(a.created_at)),
                    Box::new(json(a)?),
                    Box::new(rendered.as_str()),
                ],
            ),
            Write::UpdateApplication(ApplicationRecord {
                application: a,
                rendered,
            }) => (
                self.update_application.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.status.as_str()),
                    Box::new(a.version),
                    Box::new(json(a)?),
                    Box::new(rendered.as_str()),
                ],
            ),
            Write::InsertPayment(p) => (
                self.payment.clone(),
                vec![
                    Box::new(p.id.as_str()) as Param<'a>,
                    Box::new(p.owner.as_str()),
                    Box::new(p.application_id.as_str()),
                    Box::new(unix_ms(p.created_at)),
                    Box::new(json(p)?),
                ],
            ),
            Write::InsertEndpoint(r) => {
                let e = &r.endpoint;
                let status = if e.status == EndpointStatus::Enabled {
                    "enabled"
                } else {
                    "disabled"
                };
                (
                    self.endpoint.clone(),
                    vec![
                        Box::new(e.id.as_str()) as Param<'a>,
                        Box::new(e.owner.as_str()),
                        Box::new(status),
                        Box::new(&e.enabled_events[..]),
                        Box::new(r.sealed_secret.as_slice()),
                        Box::new(unix_ms(e.created_at)),
                        Box::new(json(e)?),
                    ],
                )
            }
            Write::InsertEvent(e) => (
                self.event.clone(),
                vec![
                    Box::new(e.id.as_str()) as Param<'a>,
                    Box::new(e.owner.as_str()),
                    Box::new(e.event_type.as_str()),
                    Box::new(unix_ms(e.created_at)),
                    Box::new(e.body.as_str()),
                    Box::new(ALL_EVENTS),
                ],
            ),
            Write::InsertToken(t) => (
                self.token.clone(),
                vec![
                    Box::new(&t.selector[..]) as Param<'a>,
                    Box::new(&t.verifier_hash[..]),
                    Box::new(t.client_id.as_str()),
                    Box::new(t.scopes.as_str()),
                    Box::new(t.expires_at_ms),
                    Box::new(t.created_at_ms),
                ],
            ),
        })
    }
}

fn json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(internal)
}
