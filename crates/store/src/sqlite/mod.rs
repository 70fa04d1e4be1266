//! The embedded SQLite backend: WAL, `synchronous=FULL`, one writer thread that
//! group-commits (many requests share one fsync) and a small pool of readers.

/// Shared SQL (`crate::sql`) in SQLite's spelling, converted once per use site.
macro_rules! shared {
    ($statement:expr) => {{
        static TEXT: std::sync::LazyLock<String> =
            std::sync::LazyLock::new(|| $crate::sqlite::dialect($statement));
        TEXT.as_str()
    }};
}

mod checkpointer;
pub(crate) mod exec;
pub mod idempotency;
mod jobs;
mod migrations;
pub(crate) mod row_keys;
mod rows;
mod unit;
mod writer;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use async_trait::async_trait;
use parking_lot::Mutex;
use rusqlite::{Connection, OpenFlags};

use self::checkpointer::Checkpointer;
use self::idempotency::{Looker, RecentKeys};
use crate::error::{CommitError, StoreError};
use crate::exec::Memos;
use crate::*;
use lendhub_domain::tenant::Tenant;

pub use migrations::migrate;

const READERS: usize = 4;

pub struct SqliteStore {
    writer: writer::Writer,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
    memos: Memos,
    /// Whether the memos above answer (`read_caches.enabled`); off, every
    /// probe reads the file.
    remember_reads: bool,
    /// Where the newest idempotency records are (`idempotency`).
    recent_keys: Arc<RecentKeys>,
    _checkpointer: Checkpointer,
}

/// Makes the database file, if it is new, readable by its owner only: it
/// holds partners' and applicants' data. SQLite gives its `-wal` and `-shm`
/// files the database file's permissions.
fn create_private(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(StoreError::Unavailable(format!(
            "creating {}: {e}",
            path.display()
        ))),
    }
}

fn open_connection(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(unavailable)?;
    // FULL: the WAL is fsynced at every commit, so an acknowledged write
    // survives kill -9 and power loss; group commit keeps that affordable.
    // No memory map: every connection maps the file anew and each mapping's
    // resident pages count again in the process's RSS, which then grew with
    // the database (to half a gigabyte in ten minutes of load). Each
    // connection keeps 8 MiB of pages instead: the hot upper levels of the
    // indexes, in memory that stays bounded.
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         PRAGMA synchronous = FULL;
         PRAGMA foreign_keys = ON;
         PRAGMA busy_timeout = 5000;
         PRAGMA mmap_size = 0;
         PRAGMA cache_size = -8192;",
    )
    .map_err(unavailable)?;
    // Plan once per statement. Without the query-planner stability guarantee
    // SQLite re-prepares cached statements whenever a bound value could change
    // the plan (LIMIT ?, IS NULL tests): most of the CPU of a point read.
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )
    .map_err(unavailable)?;
    Ok(conn)
}

/// Shared SQL (`crate::sql`) in SQLite's spelling: `$n` placeholders as `?n`.
pub(crate) fn dialect(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        let placeholder = c == '$' && chars.peek().is_some_and(char::is_ascii_digit);
        out.push(if placeholder { '?' } else { c });
    }
    out
}

pub(crate) fn unavailable(e: rusqlite::Error) -> StoreError {
    match e {
        rusqlite::Error::SqliteFailure(ref f, _)
            if matches!(
                f.code,
                rusqlite::ErrorCode::DatabaseBusy
                    | rusqlite::ErrorCode::DatabaseLocked
                    | rusqlite::ErrorCode::CannotOpen
            ) =>
        {
            StoreError::Unavailable(e.to_string())
        }
        other => StoreError::Internal(other.to_string()),
    }
}

impl SqliteStore {
    /// Opens (creating if needed) and migrates the database at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        create_private(path)?;
        let mut conn = open_connection(path)?;
        migrate(&mut conn)?;
        // The writer keeps the readers' 8 MiB of pages, no more: SQLite's
        // b-tree balancing parks a page under the pending-byte page number
        // for a moment, after which the commit walks the whole page cache to
        // drop it (pcache1TruncateUnsafe, 5 % of the server's CPU under the
        // identity provider's code exchange with 32 MiB). Savepoints (a batch
        // run again after a job failed, a sandbox reset) keep the first
        // version of every page they change in a sub-journal: in memory, not
        // in a temporary file written page by page.
        conn.execute_batch("PRAGMA cache_size = -8192; PRAGMA temp_store = MEMORY;")
            .map_err(unavailable)?;
        let readers = (0..READERS)
            .map(|_| open_connection(path).map(Mutex::new))
            .collect::<Result<_, _>>()?;
        let checkpointer =
            Checkpointer::start(&conn, open_connection(path)?).map_err(unavailable)?;
        // What a previous run left unindexed is indexed now, so that this
        // process starts with nothing to remember.
        let indexed_through = {
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(unavailable)?;
            let through = idempotency::merge(&tx).map_err(unavailable)?;
            tx.commit().map_err(unavailable)?;
            through
        };
        let recent_keys = Arc::new(RecentKeys::starting_at(indexed_through));
        let commits = Arc::new(AtomicU64::new(0));
        Ok(Self {
            writer: writer::Writer::start(conn, commits.clone(), recent_keys.clone()),
            readers,
            next_reader: AtomicUsize::new(0),
            memos: Memos::new(commits),
            remember_reads: true,
            recent_keys,
            _checkpointer: checkpointer,
        })
    }

    /// Every version and log-position probe read from the file, none
    /// answered from memory: for measuring the storage itself, or for
    /// ruling the memos out while chasing a fault.
    pub fn forgetting_reads(mut self) -> Self {
        self.remember_reads = false;
        self
    }

    /// Indexes the newest idempotency records in the background; requests
    /// keep committing meanwhile, in the batches around it.
    fn merge_recent_keys(&self) {
        let (writer, recent) = (self.writer.clone(), self.recent_keys.clone());
        tokio::spawn(async move {
            let through = writer
                .run(|c| idempotency::merge(c).map_err(unavailable))
                .await;
            if let Err(e) = &through {
                tracing::warn!(error = %e, "could not index the newest idempotency keys");
            }
            recent.merged(through.ok());
        });
    }

    /// Reads run inline on a pooled connection: they are indexed lookups taking
    /// microseconds, cheaper than a hop to a blocking thread.
    fn read<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        f(&self.reader()).map_err(unavailable)
    }

    /// The next reader of the pool, in turn.
    fn reader(&self) -> parking_lot::MutexGuard<'_, Connection> {
        let i = self.next_reader.fetch_add(1, Ordering::Relaxed) % self.readers.len();
        self.readers[i].lock()
    }
}

#[async_trait]
impl Maintenance for SqliteStore {
    async fn ping(&self) -> Result<(), StoreError> {
        // Any failure here means the database cannot serve: always "unavailable".
        self.read(|c| c.query_row("SELECT count(*) FROM schema_migrations", [], |_| Ok(())))
            .map_err(|e| StoreError::Unavailable(e.to_string()))
    }

    async fn prune(&self, retention: Retention) -> Result<u64, StoreError> {
        self.writer
            .run(move |c| unit::prune(c, &retention).map_err(unavailable))
            .await
    }

    async fn close(&self) {
        self.writer.shutdown().await;
    }
}

#[async_trait]
impl UnitOfWork for SqliteStore {
    async fn idempotency(
        &self,
        owner: &Tenant,
        key: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        self.read(|c| {
            idempotency::find(c, &self.recent_keys, Looker::Reader, owner, key)
                .map(|found| found.map(|(record, _)| record))
        })
    }

    async fn commit(&self, set: WriteSet) -> Result<(), CommitError> {
        let recent = self.recent_keys.clone();
        // Planned here, so the writer thread only runs statements.
        let planned = crate::unit::plan(&set, <Self as crate::exec::Backend>::DIALECT)?;
        self.writer
            .run(move |c| unit::apply(c, &recent, &set, &planned))
            .await?;
        if self.recent_keys.merge_due() {
            self.merge_recent_keys();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn shared_sql_reads_with_sqlite_placeholders() {
        assert_eq!(
            super::dialect("SELECT $1, $12 FROM t WHERE price = '$' AND x = $2"),
            "SELECT ?1, ?12 FROM t WHERE price = '$' AND x = ?2"
        );
    }
}
