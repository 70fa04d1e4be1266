//! Idempotency records on SQLite, indexed by key in arrears.
//!
//! Keys are the client's and usually random. A unique index on them put every
//! new record on a random leaf, so each group commit rewrote one 4 KiB page of
//! the write-ahead log per key: a third of all that creating an application
//! wrote, and the largest part of the writer thread's time. Records are
//! instead appended in arrival order under a sequence that never goes back
//! (`seq`, AUTOINCREMENT). Those up to `idempotency_indexed.through` are found
//! through `idempotency_index`; newer ones (the tail) through [`RecentKeys`],
//! this process's note of where it put each, or, for rows another process
//! added, a scan of the rows past the point this process has accounted for
//! (none, unless another process wrote). Every [`MERGE_AT`] keys the tail
//! goes into the index in one job, sorted, so that one leaf written serves
//! many keys.
//!
//! Every place a note names is read back and checked against the key, so a
//! note may outlive its row (a job rolled back, a reset, a replaced record)
//! without harm. What must never happen is a row no lookup reaches, and every
//! row is either indexed, noted when this process inserted it, noted when the
//! writer met a gap in the sequence it had not made, or past the point the
//! lookup scans from.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::unavailable;
use super::writer::BatchObserver;
use crate::error::CommitError;
use crate::*;
use lendhub_domain::tenant::Tenant;

/// Keys in memory before the tail is merged into the index: with 100-byte
/// keys about a megabyte, and one merge writes each index leaf once for up to
/// this many records instead of once per record.
pub const MERGE_AT: usize = 8192;

// Lookups, in the shared `$n` spelling so that the plan test can read them.

/// A record by its place in the sequence, if it holds this key.
pub const BY_SEQ: &str = "SELECT fingerprint, status, body, created_at_ms, seq FROM idempotency_keys \
     WHERE seq = $1 AND owner = $2 AND key = $3";
/// The newest record past `$1` under the key: rows another process added
/// since this one last accounted for the sequence.
pub const PAST_FLOOR: &str = "SELECT fingerprint, status, body, created_at_ms, seq FROM idempotency_keys \
     WHERE seq > $1 AND owner = $2 AND key = $3 ORDER BY seq DESC LIMIT 1";
/// A record through the index.
pub const INDEXED: &str = "SELECT k.fingerprint, k.status, k.body, k.created_at_ms, k.seq \
     FROM idempotency_index i JOIN idempotency_keys k ON k.seq = i.record \
     WHERE i.owner = $1 AND i.key = $2";

/// Where this process put its newest records, and how far the sequence is
/// accounted for. Noted by the writer thread, read by every connection.
#[derive(Default)]
pub(crate) struct RecentKeys {
    inner: Mutex<Recent>,
    merging: AtomicBool,
}

#[derive(Default)]
struct Recent {
    /// `owner \n key` → the places noted for it, in sequence order.
    at: HashMap<String, Vec<i64>>,
    /// Every committed row at or below this is indexed or noted: readers
    /// scan only past it.
    floor: i64,
    /// The writer's newest insert. Every row at or below it is indexed or
    /// noted, unless a batch was rolled back since (`gap_possible`): then
    /// another process may have taken the places the batch gave up.
    last: i64,
    gap_possible: bool,
}

fn note_key(owner: &str, key: &str) -> String {
    let mut k = String::with_capacity(owner.len() + 1 + key.len());
    k.push_str(owner);
    k.push('\n');
    k.push_str(key);
    k
}

/// Who is looking: the writer also sees the rows of its open batch.
#[derive(Clone, Copy)]
pub(crate) enum Looker {
    Reader,
    Writer,
}

impl RecentKeys {
    /// After the tail has been merged through `through` (nothing in memory).
    pub fn starting_at(through: i64) -> Self {
        let keys = Self::default();
        {
            let mut r = keys.inner.lock();
            r.floor = through;
            r.last = through;
        }
        keys
    }

    /// The places noted for the key, newest first, and the point past which
    /// rows may be unnoted.
    fn candidates(&self, owner: &str, key: &str, looker: Looker) -> (Vec<i64>, i64) {
        let r = self.inner.lock();
        let places = r.at.get(&note_key(owner, key)).cloned().unwrap_or_default();
        let past = match looker {
            Looker::Writer if !r.gap_possible => r.last,
            _ => r.floor,
        };
        (places, past)
    }

    fn note(r: &mut Recent, owner: &str, key: &str, seq: i64) {
        let places = r.at.entry(note_key(owner, key)).or_default();
        if !places.contains(&seq) {
            places.push(seq);
            places.sort_unstable();
        }
    }

    /// A record of this process's went in at `seq` on the writer connection.
    fn inserted(&self, c: &Connection, owner: &str, key: &str, seq: i64) -> rusqlite::Result<()> {
        let mut r = self.inner.lock();
        if seq != r.last + 1 || r.gap_possible {
            // Another process's rows may sit between: note them all.
            let mut rows = c.prepare_cached(
                "SELECT seq, owner, key FROM idempotency_keys WHERE seq > ?1 AND seq < ?2",
            )?;
            let mut found = rows.query(params![r.floor, seq])?;
            while let Some(row) = found.next()? {
                let (place, owner, key): (i64, String, String) =
                    (row.get(0)?, row.get(1)?, row.get(2)?);
                Self::note(&mut r, &owner, &key, place);
            }
            r.gap_possible = false;
        }
        Self::note(&mut r, owner, key, seq);
        r.last = seq;
        Ok(())
    }

    /// Whether the caller should start a merge; at most one runs at a time.
    pub fn merge_due(&self) -> bool {
        self.inner.lock().at.len() >= MERGE_AT && !self.merging.swap(true, Ordering::AcqRel)
    }

    /// A merge has ended; if it committed, every record through `through` is
    /// in the index and its notes are dropped.
    pub fn merged(&self, through: Option<i64>) {
        if let Some(through) = through {
            let mut r = self.inner.lock();
            r.at.retain(|_, places| {
                places.retain(|&p| p > through);
                !places.is_empty()
            });
            r.floor = r.floor.max(through);
            r.last = r.last.max(through);
        }
        self.merging.store(false, Ordering::Release);
    }
}

impl BatchObserver for RecentKeys {
    fn committed(&self) {
        let mut r = self.inner.lock();
        if !r.gap_possible {
            r.floor = r.floor.max(r.last);
        }
    }

    fn rolled_back(&self) {
        self.inner.lock().gap_possible = true;
    }
}

fn record(owner: &Tenant, key: &str, r: &Row<'_>) -> rusqlite::Result<(IdempotencyRecord, i64)> {
    let fp: Vec<u8> = r.get(0)?;
    let mut fingerprint = [0u8; 32];
    if fp.len() == 32 {
        fingerprint.copy_from_slice(&fp);
    }
    Ok((
        IdempotencyRecord {
            owner: owner.to_owned(),
            key: key.to_owned(),
            fingerprint,
            status: r.get(1)?,
            body: r.get(2)?,
            created_at_ms: r.get(3)?,
        },
        r.get(4)?,
    ))
}

/// The newest record under the key as `c` sees it, with its place.
pub(crate) fn find(
    c: &Connection,
    recent: &RecentKeys,
    looker: Looker,
    owner: &Tenant,
    key: &str,
) -> rusqlite::Result<Option<(IdempotencyRecord, i64)>> {
    let (places, floor) = recent.candidates(owner.as_str(), key, looker);
    for seq in places.into_iter().rev() {
        let found = c
            .prepare_cached(shared!(BY_SEQ))?
            .query_row(params![seq, owner.as_str(), key], |r| record(owner, key, r))
            .optional()?;
        if found.is_some() {
            return Ok(found);
        }
    }
    let past_floor = c
        .prepare_cached(shared!(PAST_FLOOR))?
        .query_row(params![floor, owner.as_str(), key], |r| {
            record(owner, key, r)
        })
        .optional()?;
    if past_floor.is_some() {
        return Ok(past_floor);
    }
    c.prepare_cached(shared!(INDEXED))?
        .query_row(params![owner.as_str(), key], |r| record(owner, key, r))
        .optional()
}

/// Records the key, replacing a record that has expired on the owner's clock;
/// a live record under the key fails the set. The record's place.
pub(crate) fn claim(
    c: &Connection,
    recent: &RecentKeys,
    r: &IdempotencyRecord,
) -> Result<i64, CommitError> {
    let store = |e: rusqlite::Error| CommitError::from(unavailable(e));
    let retention_ms = lendhub_domain::idempotency::RETENTION.whole_milliseconds() as i64;
    if let Some((stored, seq)) = find(c, recent, Looker::Writer, &r.owner, &r.key).map_err(store)? {
        if stored.created_at_ms > r.created_at_ms - retention_ms {
            return Err(CommitError::IdempotencyKeyTaken);
        }
        c.prepare_cached("DELETE FROM idempotency_keys WHERE seq = ?1")
            .and_then(|mut s| s.execute([seq]))
            .map_err(store)?;
        c.prepare_cached(
            "DELETE FROM idempotency_index WHERE owner = ?1 AND key = ?2 AND record = ?3",
        )
        .and_then(|mut s| s.execute(params![r.owner.as_str(), r.key, seq]))
        .map_err(store)?;
    }
    c.prepare_cached(
        "INSERT INTO idempotency_keys (owner, key, fingerprint, status, body, created_at_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .and_then(|mut s| {
        s.execute(params![
            r.owner.as_str(),
            r.key,
            &r.fingerprint[..],
            r.status,
            r.body,
            r.created_at_ms
        ])
    })
    .map_err(store)?;
    let seq = c.last_insert_rowid();
    recent
        .inserted(c, r.owner.as_str(), &r.key, seq)
        .map_err(store)?;
    Ok(seq)
}

/// Adds every record not yet indexed to the index, sorted by key so that
/// neighbouring keys share a leaf write. Where the index now reaches.
pub(crate) fn merge(c: &Connection) -> rusqlite::Result<i64> {
    let from: i64 = c.query_row(
        "SELECT through FROM idempotency_indexed WHERE one = 1",
        [],
        |r| r.get(0),
    )?;
    let through: i64 = c.query_row(
        "SELECT coalesce(max(seq), ?1) FROM idempotency_keys",
        [from],
        |r| r.get(0),
    )?;
    if through > from {
        // Ordered by place within a key, so that of two records under one
        // key (an expired one this process could not see) the newer wins.
        c.prepare_cached(
            "INSERT INTO idempotency_index (owner, key, record)
             SELECT owner, key, seq FROM idempotency_keys WHERE seq > ?1 AND seq <= ?2
             ORDER BY owner, key, seq
             ON CONFLICT (owner, key) DO UPDATE SET record = excluded.record",
        )?
        .execute([from, through])?;
        c.prepare_cached("UPDATE idempotency_indexed SET through = ?1 WHERE one = 1")?
            .execute([through])?;
    }
    Ok(through)
}

/// Index entries of the records a prune is about to delete (`condition` over
/// `idempotency_keys`, binding `?1`), so that the index does not keep them.
pub(crate) fn unindex(c: &Connection, condition: &str, before_ms: i64) -> rusqlite::Result<usize> {
    c.execute(
        &format!(
            "DELETE FROM idempotency_index WHERE (owner, key, record) IN
                 (SELECT owner, key, seq FROM idempotency_keys WHERE {condition})"
        ),
        [before_ms],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWNER: &str = "pk_test_owner";

    fn database() -> Connection {
        let mut c = Connection::open_in_memory().expect("a database");
        super::super::migrate(&mut c).expect("migrated");
        c
    }

    fn record(key: &str, created_at_ms: i64) -> IdempotencyRecord {
        IdempotencyRecord {
            owner: Tenant::from_stored(OWNER.into()),
            key: key.into(),
            fingerprint: [1; 32],
            status: 201,
            body: key.as_bytes().to_vec(),
            created_at_ms,
        }
    }

    fn found(c: &Connection, recent: &RecentKeys, looker: Looker, key: &str) -> Option<Vec<u8>> {
        find(c, recent, looker, &Tenant::from_stored(OWNER.into()), key)
            .expect("a lookup")
            .map(|(r, _)| r.body)
    }

    /// Whether claiming the key at `at` finds it taken.
    fn taken(c: &Connection, recent: &RecentKeys, key: &str, at: i64) -> bool {
        matches!(
            claim(c, recent, &record(key, at)),
            Err(CommitError::IdempotencyKeyTaken)
        )
    }

    /// Another process's insert: straight into the table, unnoted here.
    fn insert_elsewhere(c: &Connection, key: &str) {
        c.execute(
            "INSERT INTO idempotency_keys (owner, key, fingerprint, status, body, created_at_ms)
             VALUES (?1, ?2, zeroblob(32), 201, CAST(?2 AS BLOB), 0)",
            params![OWNER, key],
        )
        .expect("inserted");
    }

    #[test]
    fn keys_are_found_before_and_after_the_merge_and_claimed_once() {
        let c = database();
        let recent = RecentKeys::starting_at(0);
        for n in 0..5 {
            claim(&c, &recent, &record(&format!("k{n}"), 1_000)).expect("claimed");
        }
        recent.committed();
        assert_eq!(
            found(&c, &recent, Looker::Reader, "k3"),
            Some(b"k3".to_vec())
        );
        assert!(taken(&c, &recent, "k3", 2_000));
        let through = merge(&c).expect("merged");
        assert_eq!(through, 5);
        recent.merged(Some(through));
        assert!(
            recent.inner.lock().at.is_empty(),
            "merged notes are dropped"
        );
        let indexed: i64 = c
            .query_row("SELECT count(*) FROM idempotency_index", [], |r| r.get(0))
            .expect("a count");
        assert_eq!(indexed, 5);
        assert_eq!(
            found(&c, &recent, Looker::Reader, "k3"),
            Some(b"k3".to_vec())
        );
        assert!(taken(&c, &recent, "k3", 2_000));
        assert_eq!(found(&c, &recent, Looker::Reader, "k9"), None);
    }

    #[test]
    fn an_expired_record_is_replaced_in_the_tail_and_in_the_index() {
        let c = database();
        let recent = RecentKeys::starting_at(0);
        let day = lendhub_domain::idempotency::RETENTION.whole_milliseconds() as i64;
        claim(&c, &recent, &record("old", 0)).expect("claimed");
        claim(&c, &recent, &record("old", day)).expect("the expired record is replaced");
        let rows: i64 = c
            .query_row("SELECT count(*) FROM idempotency_keys", [], |r| r.get(0))
            .expect("a count");
        assert_eq!(rows, 1);
        recent.committed();
        recent.merged(Some(merge(&c).expect("merged")));
        claim(&c, &recent, &record("old", 2 * day)).expect("replaced again, from the index");
        let (record, seq) = find(
            &c,
            &recent,
            Looker::Reader,
            &Tenant::from_stored(OWNER.into()),
            "old",
        )
        .expect("a lookup")
        .expect("the newest record");
        assert_eq!((record.created_at_ms, seq), (2 * day, 3));
        let index: Vec<i64> = c
            .prepare("SELECT record FROM idempotency_index")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("the index");
        assert!(
            index.is_empty(),
            "the replaced record's entry went with it: {index:?}"
        );
    }

    #[test]
    fn rows_another_process_added_are_found_and_never_claimed_twice() {
        let c = database();
        let recent = RecentKeys::starting_at(0);
        claim(&c, &recent, &record("mine-1", 0)).expect("claimed");
        recent.committed();
        insert_elsewhere(&c, "theirs-1");
        // Past the point this process accounted for: found by the scan.
        assert_eq!(
            found(&c, &recent, Looker::Reader, "theirs-1"),
            Some(b"theirs-1".to_vec())
        );
        assert!(taken(&c, &recent, "theirs-1", 0));
        // The next insert of this process leaps over the foreign row and notes it.
        claim(&c, &recent, &record("mine-2", 0)).expect("claimed");
        recent.committed();
        assert_eq!(
            recent.inner.lock().at.get(&note_key(OWNER, "theirs-1")),
            Some(&vec![2])
        );
        assert!(taken(&c, &recent, "theirs-1", 0));
    }

    #[test]
    fn after_a_rollback_a_place_given_up_and_taken_elsewhere_is_noted() {
        let c = database();
        let recent = RecentKeys::starting_at(0);
        claim(&c, &recent, &record("kept", 0)).expect("claimed");
        recent.committed();
        c.execute_batch("BEGIN").expect("begun");
        claim(&c, &recent, &record("undone", 0)).expect("claimed");
        c.execute_batch("ROLLBACK").expect("rolled back");
        recent.rolled_back();
        // Another process takes place 2, the one the batch gave up.
        insert_elsewhere(&c, "theirs");
        assert_eq!(found(&c, &recent, Looker::Writer, "undone"), None);
        assert!(taken(&c, &recent, "theirs", 0));
        claim(&c, &recent, &record("next", 0)).expect("claimed");
        recent.committed();
        assert_eq!(recent.inner.lock().floor, 3);
        assert_eq!(
            found(&c, &recent, Looker::Reader, "theirs"),
            Some(b"theirs".to_vec())
        );
    }

    #[test]
    fn pruning_takes_the_index_entries_with_the_records() {
        let c = database();
        let recent = RecentKeys::starting_at(0);
        claim(&c, &recent, &record("old", 0)).expect("claimed");
        claim(&c, &recent, &record("new", 5_000)).expect("claimed");
        recent.committed();
        recent.merged(Some(merge(&c).expect("merged")));
        let plan: Vec<String> = c
            .prepare(
                "EXPLAIN QUERY PLAN DELETE FROM idempotency_index WHERE (owner, key, record) IN
                 (SELECT owner, key, seq FROM idempotency_keys WHERE created_at_ms < 1000)",
            )
            .and_then(|mut s| s.query_map([], |r| r.get(3))?.collect())
            .expect("a plan");
        assert!(
            plan.iter()
                .all(|line| !line.starts_with("SCAN idempotency_index")),
            "{plan:?}"
        );
        assert_eq!(
            unindex(&c, "created_at_ms < ?1", 1_000).expect("unindexed"),
            1
        );
        let left: Vec<String> = c
            .prepare("SELECT key FROM idempotency_index")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("the index");
        assert_eq!(left, vec!["new".to_string()]);
    }
}
