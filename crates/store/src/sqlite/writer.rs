//! Group commit. One thread owns the write connection; requests queue jobs and
//! the thread runs every queued job inside a single transaction, each in its own
//! savepoint, then commits once. Replies go out only after that commit is on
//! disk, so an acknowledged write is durable, and one fsync serves the batch.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::Connection;
use tokio::sync::{mpsc, oneshot};

use super::unavailable;
use crate::error::StoreError;

const MAX_BATCH: usize = 512;
const QUEUE: usize = 8192;

/// What a job leaves behind: whether to keep its changes, and how to answer
/// once the batch's fate is known (`None` = committed).
struct Ran {
    keep: bool,
    finish: Box<dyn FnOnce(Option<StoreError>) + Send>,
}

type Job = Box<dyn FnOnce(&Connection) -> Ran + Send>;

enum Msg {
    Job(Job),
    Shutdown(oneshot::Sender<()>),
}

pub(crate) struct Writer {
    tx: mpsc::Sender<Msg>,
}

impl Writer {
    /// `commits` counts the batches committed, moved before any of a
    /// batch's callers is answered.
    pub fn start(conn: Connection, commits: Arc<AtomicU64>) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        let spawned = std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || run(conn, rx, &commits));
        if let Err(e) = spawned {
            tracing::error!(error = %e, "could not start the SQLite writer thread");
        }
        Self { tx }
    }

    /// Runs `f` in the next group commit. `Err` from `f` rolls back only its own
    /// changes; the reply is sent after the batch commits.
    pub async fn run<R, E>(
        &self,
        f: impl FnOnce(&Connection) -> Result<R, E> + Send + 'static,
    ) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel::<Result<R, E>>();
        let job: Job = Box::new(move |conn| match f(conn) {
            Ok(value) => Ran {
                keep: true,
                finish: Box::new(move |commit_error| {
                    let _ = reply.send(match commit_error {
                        None => Ok(value),
                        Some(e) => Err(E::from(e)),
                    });
                }),
            },
            Err(e) => Ran {
                keep: false,
                finish: Box::new(move |_| {
                    let _ = reply.send(Err(e));
                }),
            },
        });
        let closed = || {
            E::from(StoreError::Unavailable(
                "the database writer has stopped".into(),
            ))
        };
        self.tx.send(Msg::Job(job)).await.map_err(|_| closed())?;
        answer.await.map_err(|_| closed())?
    }

    /// Waits until every job queued before this call has been committed.
    pub async fn shutdown(&self) {
        let (done, finished) = oneshot::channel();
        if self.tx.send(Msg::Shutdown(done)).await.is_ok() {
            let _ = finished.await;
        }
    }
}

fn run(conn: Connection, mut rx: mpsc::Receiver<Msg>, commits: &AtomicU64) {
    while let Some(first) = rx.blocking_recv() {
        let mut jobs = Vec::new();
        let mut shutdown = None;
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            match msg {
                Msg::Job(job) => jobs.push(job),
                Msg::Shutdown(done) => {
                    shutdown = Some(done);
                    break;
                }
            }
            if jobs.len() < MAX_BATCH {
                next = rx.try_recv().ok();
            }
        }
        commit_batch(&conn, jobs, commits);
        if let Some(done) = shutdown {
            let _ = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)");
            let _ = done.send(());
            return;
        }
    }
}

/// Savepoint statements run once per job: parse them once per connection.
fn run_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

fn commit_batch(conn: &Connection, jobs: Vec<Job>, commits: &AtomicU64) {
    if jobs.is_empty() {
        return;
    }
    // A job that cannot run is dropped unrun: dropping its reply channel
    // answers the caller "unavailable", and nothing of it was written.
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        tracing::error!(error = %e, jobs = jobs.len(), "could not begin a write transaction");
        return;
    }
    let mut finishes = Vec::with_capacity(jobs.len());
    for job in jobs {
        if let Err(e) = run_cached(conn, "SAVEPOINT job") {
            tracing::error!(error = %e, "could not open a savepoint");
            continue;
        }
        let ran = job(conn);
        let closed = if ran.keep {
            run_cached(conn, "RELEASE job")
        } else {
            run_cached(conn, "ROLLBACK TO job").and_then(|()| run_cached(conn, "RELEASE job"))
        };
        if let Err(e) = closed {
            tracing::error!(error = %e, "could not close a savepoint");
        }
        finishes.push(ran.finish);
    }
    let outcome = conn.execute_batch("COMMIT").map_err(unavailable).err();
    if outcome.is_some() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    commits.fetch_add(1, Ordering::Release);
    for finish in finishes {
        finish(outcome.clone());
    }
}
