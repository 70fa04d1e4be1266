-- Idempotency records stored in the order they arrive, found by a narrow
-- unique index on (owner, key). Keys are the client's, usually random, and
-- the record carries the whole response body: as a WITHOUT ROWID table keyed
-- by (owner, key), each new record landed on a random leaf that held four or
-- five such rows, and split it every few inserts, so every application
-- created rewrote three to four random pages of the write-ahead log. Appended
-- by rowid, the bodies share the table's last page; the random write is one
-- leaf of an index whose entries are a few dozen bytes. (PostgreSQL's heap
-- already keeps rows in arrival order beside a B-tree on the key.)
CREATE TABLE idempotency_keys_by_arrival (
    owner         TEXT NOT NULL,
    key           TEXT NOT NULL,
    fingerprint   BLOB NOT NULL,
    status        INTEGER NOT NULL,
    body          BLOB NOT NULL,
    created_at_ms INTEGER NOT NULL
);
INSERT INTO idempotency_keys_by_arrival (owner, key, fingerprint, status, body, created_at_ms)
    SELECT owner, key, fingerprint, status, body, created_at_ms FROM idempotency_keys ORDER BY created_at_ms;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_by_arrival RENAME TO idempotency_keys;
CREATE UNIQUE INDEX idempotency_keys_key ON idempotency_keys (owner, key);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at_ms);
