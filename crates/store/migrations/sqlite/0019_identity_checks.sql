-- Identity checks of people (issue #15): each stored once, as made.
CREATE TABLE identity_checks (
    id             TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    application_id TEXT,
    created_at_ms  INTEGER NOT NULL,
    body           TEXT NOT NULL
);
CREATE INDEX identity_checks_owner ON identity_checks (owner, id);
