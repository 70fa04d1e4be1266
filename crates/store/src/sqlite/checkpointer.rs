//! Copies the write-ahead log back into the database file from a thread and
//! a connection of its own. SQLite's automatic checkpoint runs inside the
//! commit that crosses its threshold, on the writer thread, which every
//! write waits behind: it was a tenth of that thread's time. A passive
//! checkpoint from elsewhere runs beside the writer and the readers (it
//! never blocks either) and does most of the copying.
//!
//! It cannot do all of it: the log starts again from its beginning only when
//! a write begins with every frame copied, and under a steady stream of
//! writes the writer has always appended more by then. So the writer keeps
//! a checkpoint of its own, at a higher threshold; when it runs, nearly
//! everything has been copied already, it finishes the rest between two
//! batches, and the log restarts. The log stays under `WRITER_THRESHOLD`
//! pages (64 MiB).

use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

use rusqlite::Connection;

/// How often the log is copied back: often enough that it stays a few MiB
/// at the writer's full rate.
const INTERVAL: Duration = Duration::from_millis(100);
/// Pages in the log past which the writer finishes a checkpoint itself.
/// Creating applications appends about 40,000 pages a second: at 4,096 the
/// writer reached its threshold as often as this thread ran, so it did half
/// the copying itself; at 16,384 this thread runs four times between.
const WRITER_THRESHOLD: u32 = 16_384;

/// Stops the thread when dropped (with the store).
pub(crate) struct Checkpointer {
    _stop: Sender<()>,
}

impl Checkpointer {
    /// `conn` copies the log back from now on; `writer` only finishes.
    pub fn start(writer: &Connection, conn: Connection) -> rusqlite::Result<Self> {
        writer.execute_batch(&format!("PRAGMA wal_autocheckpoint = {WRITER_THRESHOLD}"))?;
        let (stop, stopped) = channel();
        let spawned = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || run(&conn, &stopped));
        if let Err(e) = spawned {
            // The writer's own checkpoints still bound the log.
            tracing::error!(error = %e, "could not start the SQLite checkpoint thread");
        }
        Ok(Self { _stop: stop })
    }
}

fn run(conn: &Connection, stopped: &Receiver<()>) {
    while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(INTERVAL) {
        let checkpoint = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| {
            row.get::<_, i64>(0)
        });
        if let Err(e) = checkpoint {
            tracing::warn!(error = %e, "a WAL checkpoint failed; the next one retries");
        }
    }
}
