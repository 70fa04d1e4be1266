//! The SQL of a group commit, as statements with owned parameters so a whole
//! batch can be pipelined (every statement sent before the first answer is
//! read). A batch runs in two steps: first the *checks* — claim each job's
//! idempotency key and lock the rows its conditions read — then the *writes*
//! of the jobs whose checks passed. Nothing in the write step can fail for
//! an expected reason, so a lost race never aborts the transaction.

use deadpool_postgres::Transaction;
use tokio_postgres::Statement;
use tokio_postgres::types::ToSql;

use super::errors::{db, internal};
use crate::error::StoreError;
use crate::model::*;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::events::{ALL_EVENTS, Event};

pub(crate) type Param<'a> = Box<dyn ToSql + Sync + Send + 'a>;

/// One row if the key is now ours (new, or replacing a record that expired
/// on the owner's clock); none if another request holds it. A key another
/// transaction has inserted but not committed makes this wait for that
/// transaction, so the answer is always final.
const CLAIM_KEY: &str =
    "INSERT INTO idempotency_keys (owner, key, fingerprint, status, body, created_at_ms)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (owner, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
         status = EXCLUDED.status, body = EXCLUDED.body, created_at_ms = EXCLUDED.created_at_ms
     WHERE idempotency_keys.created_at_ms <= EXCLUDED.created_at_ms - $7";

/// Gives back a key claimed by a job that then failed another check.
const RELEASE_KEY: &str = "DELETE FROM idempotency_keys WHERE owner = $1 AND key = $2";

/// One row, now locked until commit, if the application is still at the
/// version the update was computed from.
const LOCK_APPLICATION: &str = "SELECT 1 FROM applications
     WHERE id = $1 AND owner = $2 AND version = $3 FOR UPDATE";

/// One row, share-locked until commit, if the client is active: a
/// revocation committed anywhere either precedes this (no row) or waits.
const LOCK_CLIENT: &str = "SELECT 1 FROM sandbox_clients
     WHERE client_id = $1 AND status = 'active' FOR SHARE";

/// One row, locked until commit, if the client's clock is still at the
/// offset the advance was computed from.
const LOCK_CLOCK: &str = "SELECT 1 FROM sandbox_clients
     WHERE client_id = $1 AND clock_offset_ms = $2 FOR UPDATE";

/// One row, locked until commit, if the endpoint still has the status the
/// change was computed from.
const LOCK_ENDPOINT: &str = "SELECT 1 FROM webhook_endpoints
     WHERE id = $1 AND owner = $2 AND status = $3 FOR UPDATE";

/// The row is locked by this transaction's check.
const SET_CLOCK: &str = "UPDATE sandbox_clients SET clock_offset_ms = $2 WHERE client_id = $1";

/// The row is locked by this transaction's check.
const SET_ENDPOINT_STATUS: &str =
    "UPDATE webhook_endpoints SET status = $3, body = $4 WHERE id = $1 AND owner = $2";

/// A disabled endpoint is not attempted: its pending deliveries end.
const END_DELIVERIES: &str = "UPDATE deliveries
     SET state = 'failed', last_error = 'endpoint disabled', lease_until_ms = NULL
     WHERE endpoint_id = $1 AND state = 'pending'";

/// A reset, in order: what refers to events and applications goes first.
/// The event head stays, so an owner's sequence never reuses a number (the
/// event-log position still moves). The reset's own key stays, so repeating
/// the reset replays its answer instead of wiping what came after it.
const RESET: [&str; 7] = [
    "DELETE FROM applications WHERE owner = $1",
    "DELETE FROM payments WHERE owner = $1",
    "DELETE FROM events WHERE owner = $1",
    "DELETE FROM webhook_endpoints WHERE owner = $1",
    "DELETE FROM deliveries WHERE owner = $1",
    "DELETE FROM idempotency_keys WHERE owner = $1 AND key IS DISTINCT FROM $2",
    "UPDATE sandbox_clients SET clock_offset_ms = 0 WHERE client_id = $1",
];

const INSERT_APPLICATION: &str =
    "INSERT INTO applications (id, owner, status, version, created_at_ms, body, rendered, review_due_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";

/// The row is locked by this transaction's check.
const UPDATE_APPLICATION: &str =
    "UPDATE applications SET status = $3, version = $4, body = $5, rendered = $6, review_due_ms = $7
     WHERE id = $1 AND owner = $2";

const INSERT_PAYMENT: &str = "INSERT INTO payments (id, owner, application_id, created_at_ms, body)
     VALUES ($1, $2, $3, $4, $5)";

const INSERT_ENDPOINT: &str = "INSERT INTO webhook_endpoints (id, owner, status, enabled_events, sealed_secret, created_at_ms, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

const INSERT_TOKEN: &str = "INSERT INTO sandbox_tokens (selector, verifier_hash, client_id, scopes, expires_at_ms, created_at_ms)
     VALUES ($1, $2, $3, $4, $5, $6)";

/// Every event a batch commits, in one statement, after its jobs: each
/// owner's sequence head advances once by the batch's count for that owner
/// (rows locked in owner order, so batches never wait on each other in a
/// cycle), the events take the numbers in job order, and each gets its outbox
/// rows. The head rows stay locked until COMMIT, so an owner's events become
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
     SELECT b.id, w.id, b.owner, 'pending', 1, b.at_ms, b.at_ms, b.at_ms
     FROM batch b JOIN webhook_endpoints w ON w.owner = b.owner AND w.status = 'enabled'
     WHERE b.type = ANY (w.enabled_events) OR $6 = ANY (w.enabled_events)";

/// A job's precondition, checked (and locked) before any job writes.
pub(crate) enum Check<'a> {
    /// Claim the job's idempotency key.
    Key(&'a IdempotencyRecord),
    /// The application is still at the version the update follows.
    Version(&'a lendhub_domain::application::Application),
    /// The token's client is still active.
    ActiveClient(&'a str),
    /// The client's clock is still at this offset.
    Clock(&'a str, i64),
    /// The endpoint still has this status.
    EndpointStatus(
        &'a lendhub_domain::webhook::WebhookEndpoint,
        lendhub_domain::webhook::EndpointStatus,
    ),
}

impl Check<'_> {
    /// Checks run in this order in every batch on every instance, so two
    /// batches that need the same rows take them in the same order and never
    /// deadlock: keys, then applications, then clients, then endpoints, each
    /// sorted. A client's clock (an exclusive lock) comes before its share
    /// lock, so a batch holding both never waits for a share it must upgrade.
    fn rank(&self) -> (u8, &str, &str) {
        match self {
            Check::Key(r) => (0, &r.owner, &r.key),
            Check::Version(a) => (1, a.id.as_str(), ""),
            Check::Clock(id, _) => (2, id, ""),
            Check::ActiveClient(id) => (2, id, "share"),
            Check::EndpointStatus(e, _) => (3, e.id.as_str(), ""),
        }
    }
}

/// The checks of a batch's jobs, each with its job's index, in lock order.
/// A second conditional change of one row within a batch (an application's
/// version, a clock, an endpoint's status) cannot follow the first (both
/// were computed from the same state): it is returned as failed.
pub(crate) fn checks<'a>(sets: &[&'a WriteSet]) -> (Vec<(usize, Check<'a>)>, Vec<usize>) {
    let mut checks = Vec::new();
    let mut repeated = Vec::new();
    let mut updated = std::collections::HashSet::new();
    for (job, set) in sets.iter().enumerate() {
        if let Some(record) = &set.idempotency {
            checks.push((job, Check::Key(record)));
        }
        for write in &set.writes {
            let (row, check) = match write {
                Write::UpdateApplication(r) => (
                    ("application", r.application.id.as_str()),
                    Check::Version(&r.application),
                ),
                Write::SetClock {
                    owner,
                    from_offset_ms,
                    ..
                } => (
                    ("clock", owner.as_str()),
                    Check::Clock(owner, *from_offset_ms),
                ),
                Write::SetEndpointStatus { endpoint, from } => (
                    ("endpoint", endpoint.id.as_str()),
                    Check::EndpointStatus(endpoint, *from),
                ),
                Write::InsertToken(t) => {
                    checks.push((job, Check::ActiveClient(&t.client_id)));
                    continue;
                }
                _ => continue,
            };
            if updated.insert(row) {
                checks.push((job, check));
            } else {
                repeated.push(job);
            }
        }
    }
    checks.sort_by(|(_, a), (_, b)| a.rank().cmp(&b.rank()));
    (checks, repeated)
}

/// The prepared statements a batch uses, cached per connection.
pub(crate) struct Statements {
    claim_key: Statement,
    release_key: Statement,
    lock_application: Statement,
    lock_client: Statement,
    lock_clock: Statement,
    lock_endpoint: Statement,
    set_clock: Statement,
    set_endpoint_status: Statement,
    end_deliveries: Statement,
    reset: Vec<Statement>,
    insert_application: Statement,
    update_application: Statement,
    payment: Statement,
    endpoint: Statement,
    token: Statement,
    events: Statement,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        let p = |sql| async move { tx.prepare_cached(sql).await.map_err(db) };
        Ok(Self {
            claim_key: p(CLAIM_KEY).await?,
            release_key: p(RELEASE_KEY).await?,
            lock_application: p(LOCK_APPLICATION).await?,
            lock_client: p(LOCK_CLIENT).await?,
            lock_clock: p(LOCK_CLOCK).await?,
            lock_endpoint: p(LOCK_ENDPOINT).await?,
            set_clock: p(SET_CLOCK).await?,
            set_endpoint_status: p(SET_ENDPOINT_STATUS).await?,
            end_deliveries: p(END_DELIVERIES).await?,
            reset: {
                let mut reset = Vec::with_capacity(RESET.len());
                for sql in RESET {
                    reset.push(p(sql).await?);
                }
                reset
            },
            insert_application: p(INSERT_APPLICATION).await?,
            update_application: p(UPDATE_APPLICATION).await?,
            payment: p(INSERT_PAYMENT).await?,
            endpoint: p(INSERT_ENDPOINT).await?,
            token: p(INSERT_TOKEN).await?,
            events: p(INSERT_EVENTS).await?,
        })
    }

    /// A check as a statement: it passes when it touches one row.
    pub fn check<'a>(&self, check: &Check<'a>) -> (Statement, Vec<Param<'a>>) {
        match check {
            Check::Key(r) => (
                self.claim_key.clone(),
                vec![
                    Box::new(r.owner.as_str()) as Param<'a>,
                    Box::new(r.key.as_str()),
                    Box::new(&r.fingerprint[..]),
                    Box::new(i32::from(r.status)),
                    Box::new(r.body.as_slice()),
                    Box::new(r.created_at_ms),
                    Box::new(lendhub_domain::idempotency::RETENTION.whole_milliseconds() as i64),
                ],
            ),
            Check::Version(a) => (
                self.lock_application.clone(),
                vec![
                    Box::new(a.id.as_str()) as Param<'a>,
                    Box::new(a.owner.as_str()),
                    Box::new(a.version - 1),
                ],
            ),
            Check::ActiveClient(id) => (self.lock_client.clone(), vec![Box::new(*id) as Param<'a>]),
            Check::Clock(id, offset) => (
                self.lock_clock.clone(),
                vec![Box::new(*id) as Param<'a>, Box::new(*offset)],
            ),
            Check::EndpointStatus(e, from) => (
                self.lock_endpoint.clone(),
                vec![
                    Box::new(e.id.as_str()) as Param<'a>,
                    Box::new(e.owner.as_str()),
                    Box::new(from.as_str()),
                ],
            ),
        }
    }

    /// Gives back the key a failed job claimed.
    pub fn release_key<'a>(&self, r: &'a IdempotencyRecord) -> (Statement, Vec<Param<'a>>) {
        (
            self.release_key.clone(),
            vec![
                Box::new(r.owner.as_str()) as Param<'a>,
                Box::new(r.key.as_str()),
            ],
        )
    }

    /// The statement that stores a batch's events, if it has any.
    pub fn events<'a>(&self, events: &[&'a Event]) -> Option<(Statement, Vec<Param<'a>>)> {
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
                Box::new(ALL_EVENTS),
            ],
        ))
    }

    /// The row writes of a job whose checks passed (its idempotency record is
    /// already in; its events go with the batch's, see `events`).
    pub fn writes<'a>(
        &self,
        set: &'a WriteSet,
    ) -> Result<Vec<(Statement, Vec<Param<'a>>)>, StoreError> {
        let mut statements = Vec::new();
        for write in set.writes.iter() {
            match write {
                Write::InsertEvent(_) => {}
                Write::SetEndpointStatus { endpoint, .. } => {
                    statements.push(self.write(write)?);
                    if endpoint.status == lendhub_domain::webhook::EndpointStatus::Disabled {
                        statements.push((
                            self.end_deliveries.clone(),
                            vec![Box::new(endpoint.id.as_str()) as Param<'a>],
                        ));
                    }
                }
                Write::ResetOwner { owner, keep_key } => {
                    for (i, statement) in self.reset.iter().enumerate() {
                        let mut params = vec![Box::new(owner.as_str()) as Param<'a>];
                        if RESET[i].contains("$2") {
                            params.push(Box::new(keep_key.as_deref()));
                        }
                        statements.push((statement.clone(), params));
                    }
                }
                _ => statements.push(self.write(write)?),
            }
        }
        Ok(statements)
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
                    Box::new(a.review_due_at().map(unix_ms)),
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
                    Box::new(a.review_due_at().map(unix_ms)),
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
                let status = e.status.as_str();
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
            Write::InsertEvent(_) | Write::ResetOwner { .. } => {
                return Err(StoreError::Internal(
                    "events are stored per batch, and a reset is several statements".into(),
                ));
            }
            Write::SetClock {
                owner,
                to_offset_ms,
                ..
            } => (
                self.set_clock.clone(),
                vec![
                    Box::new(owner.as_str()) as Param<'a>,
                    Box::new(*to_offset_ms),
                ],
            ),
            Write::SetEndpointStatus { endpoint: e, .. } => (
                self.set_endpoint_status.clone(),
                vec![
                    Box::new(e.id.as_str()) as Param<'a>,
                    Box::new(e.owner.as_str()),
                    Box::new(e.status.as_str()),
                    Box::new(json(e)?),
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
