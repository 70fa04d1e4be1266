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

pub struct ReadMemo<V> {
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
pub struct Miss(u64);

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

/// The answers SQLite's one writer lets a process remember.
pub struct Memos {
    /// Each owner's event-log position (`EventStore::event_log_position`).
    pub log_positions: ReadMemo<Option<crate::LogPosition>>,
    /// Applications' versions (`LendingStore::application_version`).
    pub application_versions: ReadMemo<Option<i64>>,
    /// The sandbox's applications' versions
    /// (`SandboxStore::sandbox_application_version`).
    pub sandbox_application_versions: ReadMemo<Option<i64>>,
}

impl Memos {
    /// Memos trusted while `commits` (counted by the one writer) stands still.
    pub fn new(commits: Arc<AtomicU64>) -> Self {
        Self {
            log_positions: ReadMemo::new(commits.clone()),
            application_versions: ReadMemo::new(commits.clone()),
            sandbox_application_versions: ReadMemo::new(commits),
        }
    }
}

/// `read`'s answer as `memo` of `backend`'s memos remembers it under `key`,
/// read and remembered if none is still fresh; always read on a backend
/// that remembers nothing.
pub async fn remembered<B, T, F>(
    backend: &B,
    memo: fn(&Memos) -> &ReadMemo<T>,
    key: &str,
    read: F,
) -> Result<T, crate::StoreError>
where
    B: super::Backend,
    T: Copy,
    F: std::future::Future<Output = Result<T, crate::StoreError>>,
{
    let Some(memos) = backend.memos() else {
        return read.await;
    };
    let memo = memo(memos);
    let miss = match memo.get(key) {
        Ok(answer) => return Ok(answer),
        Err(miss) => miss,
    };
    let answer = read.await?;
    memo.put(miss, key, answer);
    Ok(answer)
}
