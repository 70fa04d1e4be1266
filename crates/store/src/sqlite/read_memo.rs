//! Small reads remembered, so that a client asking the same question again
//! and again (a poller's newest events page, an application fetched in a
//! loop) costs no read of the file: each owner's event-log position, each
//! application's version.
//!
//! A remembered answer is trusted while no batch has committed since it was
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

pub const FRESH_FOR: Duration = Duration::from_millis(100);

/// Beyond this many keys the memory starts again and refills from use.
const CAPACITY: usize = 10_000;

pub(crate) struct ReadMemo<V> {
    commits: Arc<AtomicU64>,
    seen: Mutex<HashMap<String, Seen<V>>>,
}

#[derive(Clone, Copy)]
struct Seen<V> {
    commits: u64,
    at: Instant,
    answer: V,
}

/// Where a lookup missed: the commit count to remember the read with, taken
/// before the read so that a commit racing it is caught next time.
pub(crate) struct Miss(u64);

impl<V: Copy> ReadMemo<V> {
    pub fn new(commits: Arc<AtomicU64>) -> Self {
        Self {
            commits,
            seen: Mutex::new(HashMap::new()),
        }
    }

    pub fn get(&self, key: &str) -> Result<V, Miss> {
        let commits = self.commits.load(Ordering::Acquire);
        match self.seen.lock().get(key) {
            Some(s) if s.commits == commits && s.at.elapsed() < FRESH_FOR => Ok(s.answer),
            _ => Err(Miss(commits)),
        }
    }

    pub fn put(&self, miss: Miss, key: &str, answer: V) {
        let mut seen = self.seen.lock();
        if seen.len() >= CAPACITY && !seen.contains_key(key) {
            seen.clear();
        }
        seen.insert(
            key.to_owned(),
            Seen {
                commits: miss.0,
                at: Instant::now(),
                answer,
            },
        );
    }
}
