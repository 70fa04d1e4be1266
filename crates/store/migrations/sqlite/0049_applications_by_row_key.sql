-- Both applications tables gain an integer `row_key` (issue 13): a new row
-- is stored under the key its id carries, so a read by id is one descent of
-- the table instead of the id's index and then the table
-- (`sqlite::row_keys`). Declared INTEGER PRIMARY KEY rather than left as the
-- implicit rowid, which VACUUM may renumber. Rows already here keep their
-- rowid as their key and are found through the id's unique index.

CREATE TABLE applications_by_row_key (
    row_key       INTEGER PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    owner         TEXT NOT NULL,
    status        TEXT NOT NULL,
    version       INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL,
    -- the domain record, and the JSON clients are served (rendered at write time)
    body          TEXT NOT NULL,
    rendered      TEXT NOT NULL,
    review_due_ms INTEGER
);
INSERT INTO applications_by_row_key
    (row_key, id, owner, status, version, created_at_ms, body, rendered, review_due_ms)
    SELECT rowid, id, owner, status, version, created_at_ms, body, rendered, review_due_ms
    FROM applications ORDER BY rowid;
DROP TABLE applications;
ALTER TABLE applications_by_row_key RENAME TO applications;
CREATE INDEX applications_owner ON applications (owner, created_at_ms);
CREATE INDEX applications_review_due ON applications (review_due_ms) WHERE review_due_ms IS NOT NULL;

CREATE TABLE hub_applications_by_row_key (
    row_key         INTEGER PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    owner           TEXT NOT NULL,
    status          TEXT NOT NULL,
    reference       TEXT,
    version         INTEGER NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    -- When the application sweep next needs the application (an open
    -- application's expiry, a review's deadline): the sweep's index holds
    -- only those.
    due_at_ms       INTEGER,
    body            TEXT NOT NULL,
    company_number  TEXT
);
INSERT INTO hub_applications_by_row_key
    (row_key, id, owner, status, reference, version, created_at_ms, due_at_ms, body, company_number)
    SELECT rowid, id, owner, status, reference, version, created_at_ms, due_at_ms, body, company_number
    FROM hub_applications ORDER BY rowid;
DROP TABLE hub_applications;
ALTER TABLE hub_applications_by_row_key RENAME TO hub_applications;
CREATE INDEX hub_applications_owner ON hub_applications (owner, id);
CREATE INDEX hub_applications_owner_status ON hub_applications (owner, status, id);
CREATE INDEX hub_applications_owner_reference ON hub_applications (owner, reference, id)
    WHERE reference IS NOT NULL;
CREATE INDEX hub_applications_due ON hub_applications (due_at_ms)
    WHERE due_at_ms IS NOT NULL;
CREATE INDEX hub_applications_declined
    ON hub_applications (owner, company_number, id) WHERE status = 'declined';
CREATE INDEX hub_applications_in_review
    ON hub_applications (id) WHERE status = 'in_review';
