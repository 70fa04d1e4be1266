//! Group commit on PostgreSQL. Requests queue their write sets; a batcher takes
//! everything queued (up to `MAX_BATCH`) and commits it as one transaction:
//!
//! 1. *checks*: claim every job's idempotency key and lock the rows its
//!    conditions read (an application's version, a test clock's offset), in one
//!    global order so concurrent batches on any instance cannot deadlock;
//! 2. *writes*: the rows of the jobs whose checks passed; jobs that failed
//!    give back the keys they claimed;
//! 3. the events of the jobs that passed: their owners' subscriptions are
//!    read and the domain picks each event's recipients, then one statement
//!    numbers the events in each owner's sequence and queues their
//!    deliveries (`events`), so the per-owner lock keeping events in
//!    commit order is held only from there to the commit;
//! 4. `COMMIT`, one WAL flush for the whole batch.
//!
//! Each step is pipelined: all its statements are sent before the first
//! answer is read, so a batch of hundreds of jobs costs a handful of round
//! trips. A lost race is a check that matched no row, never an SQL error, so
//! an error means a fault and fails the whole batch (nothing of it is kept).
//! Replies go out only after `COMMIT` returns: an acknowledged write is
//! durable. Up to `IN_FLIGHT` batches run at once on separate connections,
//! so the next batch forms while one waits for its flush.
//!
//! A batch holds row locks from its checks to its commit, and other
//! instances' batches queue behind them. Over a slow or lossy link those few
//! round trips can stretch to many seconds of TCP retransmissions, so a
//! batch not done within its deadline is abandoned: its transaction is
//! rolled back (the rollback is sent after whatever the batch had sent), its
//! callers are answered 503, and they retry with the same Idempotency-Key,
//! which replays the batch's outcome if its `COMMIT` did get through.

use std::collections::HashSet;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use deadpool_postgres::{Pool, Transaction};
use futures_util::future::{MaybeDone, maybe_done};
use tokio::sync::{Semaphore, mpsc, oneshot};

use super::exec::Bound;
use super::{PgStore, errors, events};
use crate::error::{CommitError, StoreError};
use crate::exec::{Backend, Param, Value};
use crate::unit::{self, Unit};
use crate::{EventWrite, IdempotencyRecord, Write, WriteSet};
use lendhub_domain::sandbox::events::Event;

const MAX_BATCH: usize = 256;
const IN_FLIGHT: usize = 2;
const QUEUE: usize = 8192;

struct Job {
    set: WriteSet,
    reply: oneshot::Sender<Result<(), CommitError>>,
}

enum Msg {
    Job(Job),
    Close(oneshot::Sender<()>),
}

pub(crate) struct Batcher {
    tx: mpsc::Sender<Msg>,
}

fn stopped() -> StoreError {
    StoreError::Unavailable("the database writer has stopped".into())
}

impl Batcher {
    /// `deadline`: how long one batch may take, from taking a connection to
    /// its commit's answer.
    pub fn start(pool: Pool, deadline: Duration) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(run(pool, rx, deadline));
        Self { tx }
    }

    pub async fn commit(&self, set: WriteSet) -> Result<(), CommitError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Msg::Job(Job { set, reply }))
            .await
            .map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }

    /// Waits until every job queued before this call has been answered.
    pub async fn close(&self) {
        let (done, finished) = oneshot::channel();
        if self.tx.send(Msg::Close(done)).await.is_ok() {
            let _ = finished.await;
        }
    }
}

async fn run(pool: Pool, mut rx: mpsc::Receiver<Msg>, deadline: Duration) {
    let slots = Arc::new(Semaphore::new(IN_FLIGHT));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let Some(first) = rx.recv().await else {
            return;
        };
        let mut jobs = Vec::new();
        let mut close = None;
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            match msg {
                Msg::Job(job) => jobs.push(job),
                Msg::Close(done) => {
                    close = Some(done);
                    break;
                }
            }
            if jobs.len() < MAX_BATCH {
                next = rx.try_recv().ok();
            }
        }
        if jobs.is_empty() {
            drop(slot);
        } else {
            let pool = pool.clone();
            tokio::spawn(async move {
                commit_batch(&pool, jobs, deadline).await;
                drop(slot);
            });
        }
        if let Some(done) = close {
            let _ = slots.acquire_many(IN_FLIGHT as u32).await;
            let _ = done.send(());
            return;
        }
    }
}

async fn commit_batch(pool: &Pool, jobs: Vec<Job>, deadline: Duration) {
    let sets: Vec<&WriteSet> = jobs.iter().map(|j| &j.set).collect();
    let attempt = async {
        match pool.get().await {
            Ok(mut client) => match client.transaction().await {
                Ok(tx) => run_batch(tx, &sets).await,
                Err(e) => Err(errors::db(e)),
            },
            Err(e) => Err(errors::pool(e)),
        }
    };
    // Dropping the attempt drops its transaction, which sends ROLLBACK.
    let outcomes = match tokio::time::timeout(deadline, attempt).await {
        Ok(outcomes) => outcomes,
        Err(_) => Err(StoreError::Unavailable(format!(
            "a group commit took longer than {deadline:?} and was abandoned"
        ))),
    };
    match outcomes {
        Ok(outcomes) => {
            for (job, outcome) in jobs.into_iter().zip(outcomes) {
                let _ = job.reply.send(outcome);
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, jobs = jobs.len(), "a group commit failed");
            for job in jobs {
                let _ = job.reply.send(Err(CommitError::Store(e.clone())));
            }
        }
    }
}

/// Commits one write set in a transaction of its own, outside the batches:
/// for a reset, whose deletions would otherwise depend on where other jobs
/// of its batch fell around it.
pub(crate) async fn commit_alone(pool: &Pool, set: WriteSet) -> Result<(), CommitError> {
    let mut client = pool.get().await.map_err(errors::pool)?;
    let tx = client.transaction().await.map_err(errors::db)?;
    let mut outcomes = run_batch(tx, &[&set]).await?;
    outcomes.pop().unwrap_or(Ok(()))
}

type Step<'t> = Pin<Box<dyn Future<Output = Result<u64, tokio_postgres::Error>> + Send + 't>>;

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

/// A job's gate, passed before any job writes: its key, then its writes'
/// checks (`crate::unit`).
enum Gate<'a> {
    Key(&'a IdempotencyRecord, Vec<Value>),
    Check(&'a unit::Check),
}

impl Gate<'_> {
    /// Its place in the lock order (`crate::unit`): keys first.
    fn rank(&self) -> (u8, &str, &str) {
        match self {
            Gate::Key(r, _) => (0, r.owner.as_str(), &r.key),
            Gate::Check(c) => (c.rank.0, &c.rank.1, &c.rank.2),
        }
    }

    fn statement(&self) -> (&'static str, &[Value]) {
        match self {
            Gate::Key(_, values) => (CLAIM_KEY, values),
            Gate::Check(c) => (c.test.sql, &c.test.params),
        }
    }
}

fn claim(r: &IdempotencyRecord) -> Vec<Value> {
    vec![
        Value::from(r.owner.as_str()),
        Value::from(r.key.as_str()),
        Value::Bytes(r.fingerprint.to_vec()),
        Value::Int(i64::from(r.status)),
        Value::Bytes(r.body.clone()),
        Value::Int(r.created_at_ms),
        Value::Int(lendhub_domain::idempotency::RETENTION.whole_milliseconds() as i64),
    ]
}

/// The gates of a batch's jobs, each with its job's index, in lock order.
/// A second conditional change of one row within a batch (an application's
/// version, a clock, an endpoint's status) cannot follow the first (both
/// were computed from the same state): its job is returned as failed.
fn gates<'a>(sets: &[&'a WriteSet], units: &'a [Unit]) -> (Vec<(usize, Gate<'a>)>, Vec<usize>) {
    let mut gates = Vec::new();
    let mut repeated = Vec::new();
    let mut updated = HashSet::new();
    for (job, (set, unit)) in sets.iter().zip(units).enumerate() {
        if let Some(record) = &set.idempotency {
            gates.push((job, Gate::Key(record, claim(record))));
        }
        for check in &unit.checks {
            match &check.row {
                Some(row) if !updated.insert(row) => repeated.push(job),
                _ => gates.push((job, Gate::Check(check))),
            }
        }
    }
    gates.sort_by(|(_, a), (_, b)| a.rank().cmp(&b.rank()));
    (gates, repeated)
}

/// Prepares `sql` (from the connection's cache after its first use) and
/// binds `values`; the statement is sent when the step is first polled.
async fn step<'t>(
    tx: &'t Transaction<'_>,
    sql: &'static str,
    values: &'t [Value],
) -> Result<Step<'t>, StoreError> {
    let statement = tx.prepare_cached(sql).await.map_err(errors::db)?;
    Ok(Box::pin(async move {
        let bound = values.iter().map(|v| Bound(Param::from(v)));
        tx.execute_raw(&statement, bound).await
    }))
}

/// Runs the batch and commits; `Err` means nothing of it is stored, and every
/// job gets that error.
async fn run_batch(
    tx: Transaction<'_>,
    sets: &[&WriteSet],
) -> Result<Vec<Result<(), CommitError>>, StoreError> {
    let units = sets
        .iter()
        .map(|set| unit::plan(set, <PgStore as Backend>::DIALECT))
        .collect::<Result<Vec<_>, _>>()?;
    let (gates, repeated) = gates(sets, &units);
    let mut outcomes: Vec<Result<(), CommitError>> = sets.iter().map(|_| Ok(())).collect();
    for job in repeated {
        outcomes[job] = Err(CommitError::Conflict);
    }
    let mut steps = Vec::with_capacity(gates.len());
    for (_, gate) in &gates {
        let (sql, values) = gate.statement();
        steps.push(step(&tx, sql, values).await?);
    }
    let mut claimed = vec![false; sets.len()];
    let mut passed = Vec::new();
    for ((job, gate), rows) in gates.iter().zip(in_order(steps).await) {
        let passes = rows.map_err(errors::db)? == 1;
        if passes {
            passed.push((*job, gate));
        }
        match (gate, passes) {
            (Gate::Key(..), true) => claimed[*job] = true,
            // A taken key is the answer whatever else failed: the caller replays.
            (Gate::Key(..), false) => outcomes[*job] = Err(CommitError::IdempotencyKeyTaken),
            (_, false) if outcomes[*job].is_ok() => outcomes[*job] = Err(CommitError::Conflict),
            _ => {}
        }
    }

    // A failed job gives back what its passed gates took; the others write.
    let release_keys: Vec<[Value; 2]> = sets
        .iter()
        .map(|set| match &set.idempotency {
            Some(r) => [Value::from(r.owner.as_str()), Value::from(r.key.as_str())],
            None => [Value::Null, Value::Null],
        })
        .collect();
    let mut steps = Vec::new();
    for (job, gate) in passed {
        match gate {
            Gate::Check(check) if outcomes[job].is_err() => {
                if let Some(release) = &check.release {
                    steps.push(step(&tx, release.sql, &release.params).await?);
                }
            }
            Gate::Key(..) if outcomes[job].is_err() => {
                steps.push(step(&tx, RELEASE_KEY, &release_keys[job]).await?);
            }
            _ => {}
        }
    }
    for (unit, outcome) in units.iter().zip(&outcomes) {
        if outcome.is_ok() {
            for s in &unit.steps {
                steps.push(step(&tx, s.sql, &s.params).await?);
            }
        }
    }
    let events: Vec<&Event> = sets
        .iter()
        .zip(&outcomes)
        .filter(|(_, outcome)| outcome.is_ok())
        .flat_map(|(set, _)| set.writes.iter())
        .filter_map(|w| match w {
            Write::Events(EventWrite::InsertEvent(e)) => Some(e),
            _ => None,
        })
        .collect();
    // The writes, then (in the same pipeline, so after them on the wire)
    // the subscriptions of the events' owners.
    let subscriptions = async {
        if events.is_empty() {
            Ok(Vec::new())
        } else {
            events::subscriptions(&tx, &events).await
        }
    };
    let (results, subscriptions) = futures_util::join!(in_order(steps), subscriptions);
    for result in results {
        result.map_err(errors::db)?;
    }
    events::insert(&tx, &events, &subscriptions.map_err(errors::db)?).await?;
    tx.commit().await.map_err(errors::db)?;
    Ok(outcomes)
}

/// Polls every step once, in order, before awaiting any: a step's first poll
/// is what sends its request, so this fixes the order on the wire. Answers
/// come back in that same order, so they are then awaited one by one.
async fn in_order(steps: Vec<Step<'_>>) -> Vec<Result<u64, tokio_postgres::Error>> {
    let mut steps: Vec<MaybeDone<Step<'_>>> = steps.into_iter().map(maybe_done).collect();
    poll_fn(|cx| {
        for step in &mut steps {
            let _ = Pin::new(step).poll(cx);
        }
        Poll::Ready(())
    })
    .await;
    let mut results = Vec::with_capacity(steps.len());
    for mut step in steps {
        (&mut step).await;
        // Awaited, a MaybeDone holds its output: take_output is always Some.
        results.push(Pin::new(&mut step).take_output().unwrap_or(Ok(0)));
    }
    results
}
