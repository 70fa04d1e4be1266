-- Idempotency records are indexed by key in arrears (issue 13). Keys are the
-- client's and usually random, so a unique index on (owner, key) put every
-- new record on a random leaf: a batch of 23 creations rewrote 23 random
-- 4 KiB pages of the write-ahead log, a third of all it wrote. Records are
-- now appended in arrival order with a sequence that never goes back; the
-- newest are found through the writing process's memory
-- (`sqlite::idempotency`), and every few thousand records their keys are
-- added to `idempotency_index` together, sorted, one leaf write serving many
-- keys.
ALTER TABLE idempotency_keys RENAME TO idempotency_keys_before_0048;
CREATE TABLE idempotency_keys (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    owner         TEXT NOT NULL,
    key           TEXT NOT NULL,
    fingerprint   BLOB NOT NULL,
    status        INTEGER NOT NULL,
    body          BLOB NOT NULL,
    created_at_ms INTEGER NOT NULL
);
INSERT INTO idempotency_keys (owner, key, fingerprint, status, body, created_at_ms)
    SELECT owner, key, fingerprint, status, body, created_at_ms
    FROM idempotency_keys_before_0048 ORDER BY rowid;
DROP TABLE idempotency_keys_before_0048;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at_ms);

-- Where each key's record is, for records up to `idempotency_indexed.through`.
CREATE TABLE idempotency_index (
    owner  TEXT NOT NULL,
    key    TEXT NOT NULL,
    record INTEGER NOT NULL,
    PRIMARY KEY (owner, key)
) WITHOUT ROWID;
INSERT INTO idempotency_index (owner, key, record)
    SELECT owner, key, seq FROM idempotency_keys;

CREATE TABLE idempotency_indexed (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    through INTEGER NOT NULL
);
INSERT INTO idempotency_indexed (one, through)
    SELECT 1, coalesce(max(seq), 0) FROM idempotency_keys;
