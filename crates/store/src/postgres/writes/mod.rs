//! The SQL of a group commit, as statements with owned parameters so a whole
//! batch can be pipelined (every statement sent before the first answer is
//! read). A batch runs in two steps: first the *checks* — claim each job's
//! idempotency key and lock the rows its conditions read — then the *writes*
//! of the jobs whose checks passed. Nothing in the write step can fail for
//! an expected reason, so a lost race never aborts the transaction.
//!
//! Each context's statements and checks live in a module of their own; this
//! one holds what every context shares: the idempotency key, and the order
//! in which checks take their locks.
//!
//! # Lock order
//!
//! Checks run in this order in every batch on every instance, so two batches
//! that need the same rows take them in the same order and never deadlock.
//! Each context owns a range of ranks; within a rank, rows are sorted by key.
//!
//! | rank  | context      | rows locked                                        |
//! |-------|--------------|----------------------------------------------------|
//! | 0     | unit of work | idempotency keys, by (owner, key)                  |
//! | 10    | sandbox      | applications (`FOR UPDATE`), by id                 |
//! | 11    | sandbox      | test clocks (upsert, so locked), by owner          |
//! | 12    | sandbox      | clients (`FOR SHARE`), by id                       |
//! | 19    | events       | endpoint slots (an owner's count row), by owner    |
//! | 20    | events       | webhook endpoints (`FOR UPDATE`), by id            |
//! | 30    | lending      | hub applications (`FOR UPDATE`), by id             |
//! | 31–59 | REST tier    | lending 31–39, servicing 40–49, commercial 50–59   |
//! | last  | events       | event heads, by owner, in `INSERT_EVENTS`          |
//!
//! A new context that locks rows takes the next free range here.

mod access;
mod commercial;
mod events;
mod lending;
mod sandbox;
mod staff;

use deadpool_postgres::Transaction;
use tokio_postgres::Statement;
use tokio_postgres::types::ToSql;

use super::errors::db;
use crate::error::StoreError;
use crate::*;
use lendhub_domain::sandbox::events::Event;

pub(crate) use events::{Recipients, recipients_of};

pub(crate) type Param<'a> = Box<dyn ToSql + Sync + Send + 'a>;

/// A statement and its parameters, ready to pipeline.
pub(crate) type Bound<'a> = (Statement, Vec<Param<'a>>);

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

/// The enquiry and its notification in one statement (in a pipelined
/// batch, one round trip fewer than `sql::public`'s two).
const INSERT_ENQUIRY: &str = "WITH enquiry AS (
         INSERT INTO enquiries (id, form, dept, fields, status, created_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id)
     INSERT INTO mail_outbox (id, enquiry_id, recipient, subject, body, state, first_due_ms, due_ms)
     SELECT $7, id, $8, $9, $10, 'pending', $11, $11 FROM enquiry";

/// Gives back a key claimed by a job that then failed another check.
const RELEASE_KEY: &str = "DELETE FROM idempotency_keys WHERE owner = $1 AND key = $2";

/// A job's precondition, checked (and locked) before any job writes.
pub(crate) enum Check<'a> {
    /// Claim the job's idempotency key.
    Key(&'a IdempotencyRecord),
    Sandbox(sandbox::Check<'a>),
    Events(events::Check<'a>),
    Lending(lending::Check<'a>),
    Commercial(commercial::Check<'a>),
}

/// A check's place in the lock order (see the table above).
pub(crate) type Rank<'a> = (u8, &'a str, &'a str);

impl Check<'_> {
    fn rank(&self) -> Rank<'_> {
        match self {
            Check::Key(r) => (0, r.owner.as_str(), &r.key),
            Check::Sandbox(c) => c.rank(),
            Check::Events(c) => c.rank(),
            Check::Lending(c) => c.rank(),
            Check::Commercial(c) => c.rank(),
        }
    }
}

/// What a write needs checked: its check, and the row it changes
/// conditionally (a kind and an id), if it does.
pub(crate) struct Needs<'a, C> {
    pub check: C,
    pub row: Option<(&'static str, &'a str)>,
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
            let (check, row) = match write {
                Write::Sandbox(w) => match sandbox::needs(w) {
                    Some(n) => (Check::Sandbox(n.check), n.row),
                    None => continue,
                },
                Write::Events(w) => match events::needs(w) {
                    Some(n) => (Check::Events(n.check), n.row),
                    None => continue,
                },
                Write::Lending(w) => match lending::needs(w) {
                    Some(n) => (Check::Lending(n.check), n.row),
                    None => continue,
                },
                Write::Commercial(w) => match commercial::needs(w) {
                    Some(n) => (Check::Commercial(n.check), n.row),
                    None => continue,
                },
                Write::Public(_) | Write::Audit(_) | Write::Access(_) | Write::Staff(_) => continue,
            };
            match row {
                Some(row) if !updated.insert(row) => repeated.push(job),
                _ => checks.push((job, check)),
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
    insert_enquiry: Statement,
    mail_partner: Statement,
    insert_audit: Statement,
    access: access::Statements,
    staff: staff::Statements,
    commercial: commercial::Statements,
    sandbox: sandbox::Statements,
    events: events::Statements,
    lending: lending::Statements,
}

impl Statements {
    pub async fn prepare(tx: &Transaction<'_>) -> Result<Self, StoreError> {
        Ok(Self {
            claim_key: tx.prepare_cached(CLAIM_KEY).await.map_err(db)?,
            release_key: tx.prepare_cached(RELEASE_KEY).await.map_err(db)?,
            insert_enquiry: tx.prepare_cached(INSERT_ENQUIRY).await.map_err(db)?,
            mail_partner: tx
                .prepare_cached(crate::sql::events::MAIL_PARTNER)
                .await
                .map_err(db)?,
            insert_audit: tx
                .prepare_cached(crate::sql::dashboard::INSERT_AUDIT)
                .await
                .map_err(db)?,
            access: access::Statements::prepare(tx).await?,
            staff: staff::Statements::prepare(tx).await?,
            commercial: commercial::Statements::prepare(tx).await?,
            sandbox: sandbox::Statements::prepare(tx).await?,
            events: events::Statements::prepare(tx).await?,
            lending: lending::Statements::prepare(tx).await?,
        })
    }

    /// A check as a statement: it passes when it touches one row.
    pub fn check<'a>(&self, check: &Check<'a>) -> Bound<'a> {
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
            Check::Sandbox(c) => self.sandbox.check(c),
            Check::Events(c) => self.events.check(c),
            Check::Lending(c) => self.lending.check(c),
            Check::Commercial(c) => self.commercial.check(c),
        }
    }

    /// What undoes a passed check of a job that failed another (a taken
    /// endpoint slot); the key has its own, `release_key`.
    pub fn release<'a>(&self, check: &Check<'a>) -> Option<Bound<'a>> {
        match check {
            Check::Events(c) => self.events.release(c),
            Check::Lending(c) => self.lending.release(c),
            Check::Key(_) | Check::Sandbox(_) | Check::Commercial(_) => None,
        }
    }

    /// Gives back the key a failed job claimed.
    pub fn release_key<'a>(&self, r: &'a IdempotencyRecord) -> Bound<'a> {
        (
            self.release_key.clone(),
            vec![
                Box::new(r.owner.as_str()) as Param<'a>,
                Box::new(r.key.as_str()),
            ],
        )
    }

    /// The subscriptions of the owners of a batch's events; see
    /// `events::Statements::subscriptions`.
    pub async fn subscriptions(
        &self,
        tx: &Transaction<'_>,
        events: &[&Event],
    ) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
        self.events.subscriptions(tx, events).await
    }

    /// The statement that stores a batch's events and their deliveries, if
    /// it has any events.
    pub fn events<'a>(
        &self,
        events: &[&'a Event],
        recipients: Recipients<'a>,
    ) -> Option<Bound<'a>> {
        self.events.insert_events(events, recipients)
    }

    /// The row writes of a job whose checks passed (its idempotency record is
    /// already in; its events go with the batch's, see `events`).
    pub fn writes<'a>(&self, set: &'a WriteSet) -> Result<Vec<Bound<'a>>, StoreError> {
        let mut statements = Vec::new();
        for write in &set.writes {
            match write {
                Write::Sandbox(w) => self.sandbox.write(w, &mut statements)?,
                Write::Events(w) => self.events.write(w, &mut statements)?,
                Write::Lending(w) => self.lending.write(w, &mut statements)?,
                Write::Commercial(w) => self.commercial.write(w, &mut statements)?,
                Write::Access(w) => self.access.write(w, &mut statements),
                Write::Staff(w) => self.staff.write(w, &mut statements),
                Write::Audit(a) => statements.push((
                    self.insert_audit.clone(),
                    vec![
                        Box::new(a.id.as_str()) as Param<'a>,
                        Box::new(a.partner_client_id.as_str()),
                        Box::new(a.user_id.as_str()),
                        Box::new(a.email.as_str()),
                        Box::new(a.action.as_str()),
                        Box::new(a.target.as_str()),
                        Box::new(a.environment.as_str()),
                        Box::new(a.at_ms),
                    ],
                )),
                Write::Public(PublicWrite::InsertEnquiry {
                    enquiry: e,
                    mail: m,
                }) => {
                    let params: Vec<Param<'a>> = vec![
                        Box::new(e.id.as_str()),
                        Box::new(e.form.as_str()),
                        Box::new(e.dept.as_deref()),
                        Box::new(e.fields.as_str()),
                        Box::new(e.status.as_str()),
                        Box::new(e.created_at_ms),
                        Box::new(m.id.as_str()),
                        Box::new(m.recipient.as_str()),
                        Box::new(m.subject.as_str()),
                        Box::new(m.body.as_str()),
                        Box::new(m.due_ms),
                    ];
                    statements.push((self.insert_enquiry.clone(), params));
                }
                Write::Public(PublicWrite::MailPartner {
                    id,
                    client_id,
                    subject,
                    body,
                    due_ms,
                }) => statements.push((
                    self.mail_partner.clone(),
                    vec![
                        Box::new(id.as_str()) as Param<'a>,
                        Box::new(client_id.as_str()),
                        Box::new(subject.as_str()),
                        Box::new(body.as_str()),
                        Box::new(*due_ms),
                    ],
                )),
            }
        }
        Ok(statements)
    }
}

/// A record as a TEXT parameter, serialized when the statement is sent: for
/// checks, which are built where nothing can fail.
#[derive(Debug)]
pub(crate) struct JsonText<'a, T>(pub &'a T);

impl<T: serde::Serialize + std::fmt::Debug + Sync> ToSql for JsonText<'_, T> {
    fn to_sql(
        &self,
        ty: &tokio_postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        serde_json::to_string(self.0)?.to_sql(ty, out)
    }

    fn accepts(ty: &tokio_postgres::types::Type) -> bool {
        <String as ToSql>::accepts(ty)
    }

    tokio_postgres::types::to_sql_checked!();
}

pub(crate) fn json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(super::errors::internal)
}
