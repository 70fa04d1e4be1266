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
//!    deliveries (`writes::events`), so the per-owner lock keeping events in
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

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use deadpool_postgres::{Pool, Transaction};
use futures_util::future::{MaybeDone, maybe_done};
use tokio::sync::{Semaphore, mpsc, oneshot};

use super::errors;
use super::writes::{self, Check, Param, Statements};
use crate::error::{CommitError, StoreError};
use crate::{EventWrite, Write, WriteSet};
use lendhub_domain::sandbox::events::Event;
use tokio_postgres::Statement;

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

fn step<'t>(tx: &'t Transaction<'_>, (statement, params): (Statement, Vec<Param<'t>>)) -> Step<'t> {
    Box::pin(async move { tx.execute_raw(&statement, params).await })
}

/// Runs the batch and commits; `Err` means nothing of it is stored, and every
/// job gets that error.
async fn run_batch(
    tx: Transaction<'_>,
    sets: &[&WriteSet],
) -> Result<Vec<Result<(), CommitError>>, StoreError> {
    let statements = Statements::prepare(&tx).await?;

    let (checks, repeated) = writes::checks(sets);
    let mut outcomes: Vec<Result<(), CommitError>> = sets.iter().map(|_| Ok(())).collect();
    for job in repeated {
        outcomes[job] = Err(CommitError::Conflict);
    }
    let steps = checks
        .iter()
        .map(|(_, check)| step(&tx, statements.check(check)))
        .collect();
    let mut claimed = vec![false; sets.len()];
    let mut passed_checks = Vec::new();
    for ((job, check), rows) in checks.iter().zip(in_order(steps).await) {
        let passed = rows.map_err(errors::db)? == 1;
        if passed {
            passed_checks.push((*job, check));
        }
        match (check, passed) {
            (Check::Key(_), true) => claimed[*job] = true,
            // A taken key is the answer whatever else failed: the caller replays.
            (Check::Key(_), false) => outcomes[*job] = Err(CommitError::IdempotencyKeyTaken),
            (_, false) if outcomes[*job].is_ok() => outcomes[*job] = Err(CommitError::Conflict),
            _ => {}
        }
    }

    let mut steps = Vec::new();
    // A failed job gives back what its passed checks took.
    for (job, check) in passed_checks {
        if outcomes[job].is_err()
            && let Some(release) = statements.release(check)
        {
            steps.push(step(&tx, release));
        }
    }
    for ((set, outcome), claimed) in sets.iter().zip(&outcomes).zip(claimed) {
        match (outcome, &set.idempotency) {
            (Ok(()), _) => steps.extend(statements.writes(set)?.into_iter().map(|s| step(&tx, s))),
            (Err(_), Some(record)) if claimed => {
                steps.push(step(&tx, statements.release_key(record)))
            }
            _ => {}
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
            statements.subscriptions(&tx, &events).await
        }
    };
    let (results, subscriptions) = futures_util::join!(in_order(steps), subscriptions);
    for result in results {
        result.map_err(errors::db)?;
    }
    let recipients = writes::recipients_of(&subscriptions.map_err(errors::db)?, &events)?;
    if let Some(insert) = statements.events(&events, recipients) {
        step(&tx, insert).await.map_err(errors::db)?;
    }
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
