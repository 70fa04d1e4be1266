//! Group commit. One thread owns the write connection; requests queue jobs and
//! the thread runs every queued job inside a single transaction, then commits
//! once; a job that fails undoes only its own changes. Replies go out only
//! after that commit is on disk, so an acknowledged write is durable, and one
//! fsync serves the batch.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::Connection;
use tokio::sync::{mpsc, oneshot};

use super::unavailable;
use crate::error::StoreError;

const MAX_BATCH: usize = 512;
const QUEUE: usize = 8192;

/// One queued piece of work. A batch may run it twice: once without a
/// savepoint and, if any job in that batch fails, again after the rollback,
/// each job then in a savepoint of its own.
trait Job: Send {
    /// Runs the work and keeps its outcome; `true` if its changes are kept.
    fn run(&mut self, conn: &Connection) -> bool;
    /// Answers the caller with the last run's outcome, once the batch's fate
    /// is known (`None` = committed).
    fn finish(self: Box<Self>, commit_error: Option<StoreError>);
}

struct Call<F, R, E> {
    work: F,
    outcome: Option<Result<R, E>>,
    reply: oneshot::Sender<Result<R, E>>,
}

impl<F, R, E> Job for Call<F, R, E>
where
    F: Fn(&Connection) -> Result<R, E> + Send,
    R: Send,
    E: From<StoreError> + Send,
{
    fn run(&mut self, conn: &Connection) -> bool {
        let outcome = (self.work)(conn);
        let keep = outcome.is_ok();
        self.outcome = Some(outcome);
        keep
    }

    fn finish(self: Box<Self>, commit_error: Option<StoreError>) {
        let Some(outcome) = self.outcome else {
            // Never ran: dropping the reply answers "unavailable".
            return;
        };
        let _ = self.reply.send(match (outcome, commit_error) {
            (Ok(value), None) => Ok(value),
            (Ok(_), Some(e)) => Err(E::from(e)),
            (Err(e), _) => Err(e),
        });
    }
}

/// Told each batch's fate on the writer thread, before any of its callers
/// is answered.
pub(crate) trait BatchObserver: Send + Sync {
    fn committed(&self);
    /// The whole transaction was undone (a savepoint undone is not told).
    fn rolled_back(&self);
}

enum Msg {
    Job(Box<dyn Job>),
    Shutdown(oneshot::Sender<()>),
}

#[derive(Clone)]
pub(crate) struct Writer {
    tx: mpsc::Sender<Msg>,
}

impl Writer {
    /// `commits` counts the batches committed, moved before any of a
    /// batch's callers is answered.
    pub fn start(
        conn: Connection,
        commits: Arc<AtomicU64>,
        observer: Arc<dyn BatchObserver>,
    ) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        let spawned = std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || run(conn, rx, &commits, observer.as_ref()));
        if let Err(e) = spawned {
            tracing::error!(error = %e, "could not start the SQLite writer thread");
        }
        Self { tx }
    }

    /// Runs `work` in the next group commit. `Err` from `work` rolls back only
    /// its own changes; the reply is sent after the batch commits. `work` is
    /// `Fn` because a batch with a failing job runs again (see `commit_batch`):
    /// it must depend only on what it captured and what it reads.
    pub async fn run<R, E>(
        &self,
        work: impl Fn(&Connection) -> Result<R, E> + Send + 'static,
    ) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel::<Result<R, E>>();
        let job = Box::new(Call {
            work,
            outcome: None,
            reply,
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

fn run(
    conn: Connection,
    mut rx: mpsc::Receiver<Msg>,
    commits: &AtomicU64,
    observer: &dyn BatchObserver,
) {
    while let Some(first) = rx.blocking_recv() {
        let mut jobs: Vec<Box<dyn Job>> = Vec::new();
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
        commit_batch(&conn, jobs, commits, observer);
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

fn commit_batch(
    conn: &Connection,
    mut jobs: Vec<Box<dyn Job>>,
    commits: &AtomicU64,
    observer: &dyn BatchObserver,
) {
    if jobs.is_empty() {
        return;
    }
    // A job that cannot run is dropped unrun: dropping its reply channel
    // answers the caller "unavailable", and nothing of it was written.
    if !begin(conn, jobs.len()) {
        return;
    }
    // Jobs rarely fail, and a savepoint per job costs the writer about a
    // tenth of its time: each first change to a page inside a savepoint
    // copies the page to the sub-journal. So the batch runs bare first; only
    // if a job fails after changing a row is it all rolled back and run
    // again, each job in its own savepoint, where a failure undoes that job
    // alone. A job refused before its first change (an idempotency key
    // already taken) left nothing to undo.
    if !jobs.iter_mut().all(|job| run_bare(conn, job.as_mut())) {
        let _ = conn.execute_batch("ROLLBACK");
        observer.rolled_back();
        if !begin(conn, jobs.len()) {
            return;
        }
        jobs.retain_mut(|job| run_in_savepoint(conn, job.as_mut()));
    }
    let outcome = conn.execute_batch("COMMIT").map_err(unavailable).err();
    if outcome.is_some() {
        let _ = conn.execute_batch("ROLLBACK");
        observer.rolled_back();
    } else {
        observer.committed();
    }
    commits.fetch_add(1, Ordering::Release);
    for job in jobs {
        job.finish(outcome.clone());
    }
}

fn begin(conn: &Connection, jobs: usize) -> bool {
    let begun = conn.execute_batch("BEGIN IMMEDIATE");
    if let Err(e) = &begun {
        tracing::error!(error = %e, jobs, "could not begin a write transaction");
    }
    begun.is_ok()
}

/// Runs one job outside any savepoint; `false` if it failed after changing
/// a row, so that only a rollback undoes it. A failed statement undoes its
/// own changes and is not counted, so an unchanged count means an unchanged
/// database.
fn run_bare(conn: &Connection, job: &mut dyn Job) -> bool {
    let before = conn.total_changes();
    job.run(conn) || conn.total_changes() == before
}

/// Runs one job in a savepoint of its own; `false` if it could not run.
fn run_in_savepoint(conn: &Connection, job: &mut dyn Job) -> bool {
    if let Err(e) = run_cached(conn, "SAVEPOINT job") {
        tracing::error!(error = %e, "could not open a savepoint");
        return false;
    }
    let closed = if job.run(conn) {
        run_cached(conn, "RELEASE job")
    } else {
        run_cached(conn, "ROLLBACK TO job").and_then(|()| run_cached(conn, "RELEASE job"))
    };
    if let Err(e) = closed {
        tracing::error!(error = %e, "could not close a savepoint");
    }
    true
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    struct Unobserved;

    impl BatchObserver for Unobserved {
        fn committed(&self) {}
        fn rolled_back(&self) {}
    }

    /// A job that inserts `n`, counts the rows it can see, and fails after
    /// its insert when `fail`; each run is counted.
    fn job(
        n: i64,
        fail: bool,
        runs: &Arc<AtomicUsize>,
    ) -> (Box<dyn Job>, oneshot::Receiver<Result<i64, StoreError>>) {
        let runs = runs.clone();
        let (reply, answer) = oneshot::channel();
        let work = move |c: &Connection| {
            runs.fetch_add(1, Ordering::Relaxed);
            c.execute("INSERT INTO t (n) VALUES (?1)", [n])
                .map_err(unavailable)?;
            if fail {
                return Err(StoreError::Internal(format!("job {n} fails")));
            }
            c.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
                .map_err(unavailable)
        };
        let call = Call {
            work,
            outcome: None,
            reply,
        };
        (Box::new(call), answer)
    }

    fn table() -> Connection {
        let conn = Connection::open_in_memory().expect("an in-memory database");
        conn.execute_batch("CREATE TABLE t (n INTEGER PRIMARY KEY)")
            .expect("a table");
        conn
    }

    fn rows(conn: &Connection) -> Vec<i64> {
        let mut s = conn.prepare("SELECT n FROM t ORDER BY n").expect("a query");
        s.query_map([], |r| r.get(0))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("numbers")
    }

    #[test]
    fn a_batch_without_failures_runs_each_job_once_and_commits_all() {
        let conn = table();
        let runs = Arc::new(AtomicUsize::new(0));
        let (jobs, mut answers): (Vec<_>, Vec<_>) = (1..=5).map(|n| job(n, false, &runs)).unzip();
        let commits = AtomicU64::new(0);
        commit_batch(&conn, jobs, &commits, &Unobserved);
        assert_eq!(runs.load(Ordering::Relaxed), 5);
        assert_eq!(commits.load(Ordering::Relaxed), 1);
        let seen: Vec<i64> = answers
            .iter_mut()
            .map(|a| a.try_recv().expect("answered").expect("committed"))
            .collect();
        assert_eq!(seen, vec![1, 2, 3, 4, 5]);
        assert_eq!(rows(&conn), vec![1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_failing_job_undoes_only_its_own_changes() {
        let conn = table();
        let runs = Arc::new(AtomicUsize::new(0));
        let (jobs, mut answers): (Vec<_>, Vec<_>) =
            [(1, false), (2, true), (3, false), (4, true), (5, false)]
                .into_iter()
                .map(|(n, fail)| job(n, fail, &runs))
                .unzip();
        commit_batch(&conn, jobs, &AtomicU64::new(0), &Unobserved);
        let seen: Vec<Result<i64, String>> = answers
            .iter_mut()
            .map(|a| a.try_recv().expect("answered").map_err(|e| e.to_string()))
            .collect();
        // Each job sees only the kept jobs before it; the failing ones answer
        // their own error and leave no row.
        assert_eq!(seen[0], Ok(1));
        assert!(seen[1].as_ref().is_err_and(|e| e.contains("job 2 fails")));
        assert_eq!(seen[2], Ok(2));
        assert!(seen[3].as_ref().is_err_and(|e| e.contains("job 4 fails")));
        assert_eq!(seen[4], Ok(3));
        assert_eq!(rows(&conn), vec![1, 3, 5]);
        // The bare pass stopped at job 2; then all five ran in savepoints.
        assert_eq!(runs.load(Ordering::Relaxed), 2 + 5);
        assert!(conn.is_autocommit(), "the transaction is closed");
    }

    #[test]
    fn a_job_refused_before_its_first_change_rolls_nothing_back() {
        let conn = table();
        let runs = Arc::new(AtomicUsize::new(0));
        let (mut jobs, mut answers): (Vec<_>, Vec<_>) =
            [1, 2].into_iter().map(|n| job(n, false, &runs)).unzip();
        let (reply, refused) = oneshot::channel();
        let refusal = Call {
            work: |c: &Connection| -> Result<i64, StoreError> {
                // Reads, then refuses: as a claim on a taken key does.
                let _: i64 = c
                    .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
                    .map_err(unavailable)?;
                Err(StoreError::Internal("key taken".into()))
            },
            outcome: None,
            reply,
        };
        jobs.insert(1, Box::new(refusal));
        let commits = AtomicU64::new(0);
        commit_batch(&conn, jobs, &commits, &Unobserved);
        let mut refused = refused;
        assert!(
            refused
                .try_recv()
                .expect("answered")
                .is_err_and(|e| e.to_string().contains("key taken"))
        );
        let seen: Vec<i64> = answers
            .iter_mut()
            .map(|a| a.try_recv().expect("answered").expect("committed"))
            .collect();
        assert_eq!(seen, vec![1, 2]);
        assert_eq!(rows(&conn), vec![1, 2]);
        // Each job ran once: the refusal did not send the batch round again.
        assert_eq!(runs.load(Ordering::Relaxed), 2);
        assert_eq!(commits.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_job_whose_failing_statement_was_undone_rolls_nothing_back() {
        let conn = table();
        conn.execute("INSERT INTO t (n) VALUES (7)", [])
            .expect("a row");
        let runs = Arc::new(AtomicUsize::new(0));
        let (mut jobs, mut answers): (Vec<_>, Vec<_>) =
            [1].into_iter().map(|n| job(n, false, &runs)).unzip();
        let (reply, refused) = oneshot::channel();
        let duplicate = Call {
            // A constraint failure: SQLite undoes the statement, counts nothing.
            work: |c: &Connection| -> Result<usize, StoreError> {
                c.execute("INSERT INTO t (n) VALUES (7)", [])
                    .map_err(unavailable)
            },
            outcome: None,
            reply,
        };
        jobs.push(Box::new(duplicate));
        commit_batch(&conn, jobs, &AtomicU64::new(0), &Unobserved);
        let mut refused = refused;
        assert!(refused.try_recv().expect("answered").is_err());
        // Job 1 counted the row before it and its own.
        assert_eq!(
            answers[0].try_recv().expect("answered").expect("committed"),
            2
        );
        assert_eq!(rows(&conn), vec![1, 7]);
        assert_eq!(runs.load(Ordering::Relaxed), 1);
    }
}
