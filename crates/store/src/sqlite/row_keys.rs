//! Applications found by the key their id carries.
//!
//! A read by id used to descend the id's unique index and then the table. At
//! ten million rows neither leaf is in any connection's 8 MiB page cache, so
//! every spread-out read copied two pages from the kernel (issue #13). Both
//! applications tables (the sandbox's and the REST tier's) therefore have an
//! integer `row_key`, and a new row is stored under the key its id carries:
//! ids are ULIDs (the hub's behind a prefix), 48 bits of creation time then
//! 80 random bits, and the key is the time followed by the first 15 random
//! bits. A read by id is then one descent of the table's own b-tree. Keys
//! rise with time, as SQLite's own rowids did, so inserts still append.
//!
//! The key is a hint, never an identity. Two ids made in the same millisecond
//! share it once in 32,768 pairs, and rows stored before migration 0049 keep
//! the rowid they had. Such a row is stored under SQLite's next rowid, and is
//! found through the id's unique index, which stays the authority on
//! uniqueness: every statement here checks the id, and falls back to that
//! index when the key finds no row with it.
//!
//! PostgreSQL keeps its rows in a heap beside the id's B-tree; its reads by id
//! stayed within 20 % of their 10 k rate at every size measured, and it does
//! not have this column.

/// The row key `id` carries, or `None` for an id that is not a ULID (after
/// an optional `prefix_`), which is then stored under SQLite's next rowid.
pub(crate) fn row_key(id: &str) -> Option<i64> {
    let text = id.rsplit_once('_').map_or(id, |(_, ulid)| ulid);
    // 26 characters of base32 hold 130 bits; a ULID's first character is
    // at most 7, and the decoder would silently drop what overflows.
    if !matches!(text.as_bytes().first(), Some(b'0'..=b'7')) {
        return None;
    }
    let ulid = ulid::Ulid::from_string(text).ok()?;
    let first_random_bits = (ulid.random() >> (80 - RANDOM_BITS)) as u64;
    let key = (ulid.timestamp_ms() << RANDOM_BITS) | first_random_bits;
    // A ULID's time has 48 bits: with 15 more the key is below 2^63.
    i64::try_from(key).ok()
}

/// Random bits after the 48 bits of time: what fits in SQLite's signed
/// 64-bit rowid.
const RANDOM_BITS: u32 = 15;

/// `SELECT $columns FROM $table` for the row whose id is `$2` (and that
/// matches `$filter`), by its row key `$1` first and the id's index only when
/// the key does not find it. `LIMIT 1` ends the `UNION ALL` at its first row,
/// so a row under its own key costs one descent.
macro_rules! by_row_key {
    ($columns:literal, $table:literal, $filter:literal) => {
        concat!(
            "SELECT ",
            $columns,
            " FROM ",
            $table,
            " WHERE row_key = $1 AND id = $2",
            $filter,
            " UNION ALL SELECT ",
            $columns,
            " FROM ",
            $table,
            " WHERE id = $2",
            $filter,
            " LIMIT 1"
        )
    };
}

/// The key a new row is stored under (`$1`): its id's, unless a row already
/// has it or the id carries none; then SQLite's next rowid.
macro_rules! key_if_free {
    ($table:literal) => {
        concat!(
            "iif(EXISTS (SELECT 1 FROM ",
            $table,
            " WHERE row_key = $1), NULL, $1)"
        )
    };
}

/// The sandbox's applications: `$1` the row key, `$2` the id, `$3` the owner.
pub mod sandbox {
    pub const APPLICATION_BODY: &str = by_row_key!("body", "applications", " AND owner = $3");
    pub const APPLICATION_RENDERED: &str =
        by_row_key!("version, rendered", "applications", " AND owner = $3");
    pub const APPLICATION_VERSION: &str = by_row_key!("version", "applications", " AND owner = $3");
    pub const INSERT_APPLICATION: &str = concat!(
        "INSERT INTO applications
         (row_key, id, owner, status, version, created_at_ms, body, rendered, review_due_ms)
         VALUES (",
        key_if_free!("applications"),
        ", $2, $3, $4, $5, $6, $7, $8, $9)"
    );
}

/// The REST tier's applications: `$1` the row key, `$2` the id, `$3` the
/// owner where there is one.
pub mod lending {
    pub const APPLICATION: &str = by_row_key!("body", "hub_applications", " AND owner = $3");
    pub const APPLICATION_VERSION: &str =
        by_row_key!("version", "hub_applications", " AND owner = $3");
    pub const APPLICATION_ANY_OWNER: &str = by_row_key!("body", "hub_applications", "");
    pub const INSERT_APPLICATION: &str = concat!(
        "INSERT INTO hub_applications
         (row_key, id, owner, status, reference, version, created_at_ms, due_at_ms, body, company_number, search_text)
         VALUES (",
        key_if_free!("hub_applications"),
        ", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
    );
}

#[cfg(test)]
mod tests {
    use super::row_key;

    #[test]
    fn the_key_is_the_time_then_the_first_random_bits() {
        let ulid = ulid::Ulid::from_parts(1_764_300_000_000, 0b101 << 77);
        let key = row_key(&ulid.to_string()).unwrap();
        assert_eq!(key, (1_764_300_000_000 << 15) | 0b101 << 12);
        assert_eq!(row_key(&format!("app_{ulid}")), Some(key));
    }

    #[test]
    fn keys_rise_with_time_and_ids_a_millisecond_apart_never_share_one() {
        let earlier = ulid::Ulid::from_parts(1_000, u128::MAX >> 48);
        let later = ulid::Ulid::from_parts(1_001, 0);
        assert!(row_key(&earlier.to_string()) < row_key(&later.to_string()));
    }

    #[test]
    fn ids_differing_past_the_first_random_bits_share_a_key() {
        let one = ulid::Ulid::from_parts(1_000, 7);
        let other = ulid::Ulid::from_parts(1_000, 8);
        assert_eq!(row_key(&one.to_string()), row_key(&other.to_string()));
    }

    #[test]
    fn an_id_that_is_no_ulid_carries_no_key() {
        assert_eq!(row_key("not-an-id"), None);
        assert_eq!(row_key("app_ZZZZZZZZZZZZZZZZZZZZZZZZZZ"), None);
        assert_eq!(row_key(""), None);
    }
}
