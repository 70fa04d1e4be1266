//! Each owner's event-log position as last read, so that a poller asking for
//! the newest events page again and again costs no read of the file.
//!
//! A remembered position is trusted while no batch has committed since it was
//! read and for at most [`FRESH_FOR`]: every write of this process goes
//! through its one writer, which counts commits before it answers, so a
//! change made here is seen at once; a change made by another process on the
//! same file (an operator command) is seen within `FRESH_FOR` — the bound the
//! partner directory documents for the same case.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::LogPosition;

pub const FRESH_FOR: Duration = Duration::from_millis(100);

/// Beyond this many owners the memory starts again and refills from use.
const CAPACITY: usize = 10_000;

pub(crate) struct LogPositions {
    commits: Arc<AtomicU64>,
    seen: Mutex<HashMap<String, Seen>>,
}

#[derive(Clone, Copy)]
struct Seen {
    commits: u64,
    at: Instant,
    position: Option<LogPosition>,
}

/// Where a lookup missed: the commit count to remember the read with, taken
/// before the read so that a commit racing it is caught next time.
pub(crate) struct Miss(u64);

impl LogPositions {
    pub fn new(commits: Arc<AtomicU64>) -> Self {
        Self {
            commits,
            seen: Mutex::new(HashMap::new()),
        }
    }

    pub fn get(&self, owner: &str) -> Result<Option<LogPosition>, Miss> {
        let commits = self.commits.load(Ordering::Acquire);
        match self.seen.lock().get(owner) {
            Some(s) if s.commits == commits && s.at.elapsed() < FRESH_FOR => Ok(s.position),
            _ => Err(Miss(commits)),
        }
    }

    pub fn put(&self, miss: Miss, owner: &str, position: Option<LogPosition>) {
        let mut seen = self.seen.lock();
        if seen.len() >= CAPACITY && !seen.contains_key(owner) {
            seen.clear();
        }
        seen.insert(
            owner.to_owned(),
            Seen {
                commits: miss.0,
                at: Instant::now(),
                position,
            },
        );
    }
}
