//! Group commit on PostgreSQL. Requests queue their write sets; a batcher takes
//! everything queued (up to `MAX_BATCH`) and commits it as one transaction, each
//! job inside its own savepoint so one job's failure does not touch the others.
//!
//! The batch is pipelined: every job's `SAVEPOINT`, statements and `RELEASE`
//! are sent before the first answer is read, so a batch of hundreds of jobs
//! costs a few round trips and one WAL flush. A job that fails (a taken
//! idempotency key, a lost optimistic-concurrency check, which the schema turns
//! into errors) poisons the statements sent after it; the batcher rolls back
//! to that job's savepoint, answers it, and pipelines the rest again.
//!
//! Replies go out only after `COMMIT` returns, so an acknowledged write is
//! durable. Up to `IN_FLIGHT` batches run at once on separate connections,
//! so the next batch forms while one waits for its flush.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use deadpool_postgres::{Pool, Transaction};
use futures_util::future::{MaybeDone, maybe_done};
use tokio::sync::{Semaphore, mpsc, oneshot};

use super::errors;
use super::writes::Statements;
use crate::error::{CommitError, StoreError};
use crate::model::WriteSet;

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
    pub fn start(pool: Pool) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(run(pool, rx));
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

async fn run(pool: Pool, mut rx: mpsc::Receiver<Msg>) {
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
                commit_batch(&pool, jobs).await;
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

async fn commit_batch(pool: &Pool, jobs: Vec<Job>) {
    let sets: Vec<&WriteSet> = jobs.iter().map(|j| &j.set).collect();
    let outcomes = match pool.get().await {
        Ok(mut client) => match client.transaction().await {
            Ok(tx) => run_batch(tx, &sets).await,
            Err(e) => Err(errors::db(e)),
        },
        Err(e) => Err(errors::pool(e)),
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

type Step<'t> = Pin<Box<dyn Future<Output = Result<(), tokio_postgres::Error>> + Send + 't>>;

/// Runs the jobs and commits; `Err` means nothing of the batch is known to be
/// stored, and every job gets it.
async fn run_batch(
    tx: Transaction<'_>,
    sets: &[&WriteSet],
) -> Result<Vec<Result<(), CommitError>>, StoreError> {
    let statements = Statements::prepare(&tx).await?;
    if let Some((lock, params)) = statements.lock_heads(sets) {
        tx.execute_raw(&lock, params).await.map_err(errors::db)?;
    }
    let mut outcomes: Vec<Result<(), CommitError>> = Vec::with_capacity(sets.len());
    // The job re-run once after losing a deadlock.
    let mut retried = None;
    while outcomes.len() < sets.len() {
        let start = outcomes.len();
        match pipeline(&tx, &statements, &sets[start..]).await? {
            None => outcomes.extend((start..sets.len()).map(|_| Ok(()))),
            Some((failed, error)) => {
                // Jobs before the failed one are released into the transaction.
                outcomes.extend((0..failed).map(|_| Ok(())));
                tx.batch_execute("ROLLBACK TO SAVEPOINT job; RELEASE SAVEPOINT job")
                    .await
                    .map_err(errors::db)?;
                // A lost deadlock released this job's locks; once is enough
                // for the other transaction to finish.
                if errors::lost_race(&error) && retried != Some(outcomes.len()) {
                    retried = Some(outcomes.len());
                    continue;
                }
                outcomes.push(Err(errors::commit(error)));
            }
        }
    }
    tx.commit().await.map_err(errors::db)?;
    Ok(outcomes)
}

/// Sends every job at once; returns the first job that failed, and its error.
async fn pipeline(
    tx: &Transaction<'_>,
    statements: &Statements,
    sets: &[&WriteSet],
) -> Result<Option<(usize, tokio_postgres::Error)>, StoreError> {
    let mut owners = Vec::new();
    let mut steps: Vec<Step<'_>> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        let job = statements.job(set)?;
        owners.extend(std::iter::repeat_n(i, job.len() + 2));
        steps.push(Box::pin(tx.batch_execute("SAVEPOINT job")));
        for (statement, params) in job {
            steps.push(Box::pin(async move {
                tx.execute_raw(&statement, params).await.map(|_| ())
            }));
        }
        steps.push(Box::pin(tx.batch_execute("RELEASE SAVEPOINT job")));
    }
    let failed = in_order(steps)
        .await
        .into_iter()
        .zip(owners)
        .find_map(|(result, job)| result.err().map(|e| (job, e)));
    match failed {
        // Only an error the server raised aborts what follows it; one raised
        // in the driver (a parameter it could not encode, a lost connection)
        // leaves later statements run, so nothing of the batch can be kept.
        Some((_, e)) if e.as_db_error().is_none() => Err(errors::db(e)),
        other => Ok(other),
    }
}

/// Polls every step once, in order, before awaiting any: a step's first poll
/// is what sends its request, so this fixes the order on the wire. Answers
/// come back in that same order, so they are then awaited one by one.
async fn in_order(steps: Vec<Step<'_>>) -> Vec<Result<(), tokio_postgres::Error>> {
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
        results.push(Pin::new(&mut step).take_output().unwrap_or(Ok(())));
    }
    results
}
