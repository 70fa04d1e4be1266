-- The status page (issue #18). Each probe round adds one sample per
-- component to its day's counts; instances add, never overwrite, so two
-- instances probing the same database both count. Days are UTC dates.
CREATE TABLE status_days (
    component   TEXT NOT NULL,
    day         TEXT NOT NULL,
    operational INTEGER NOT NULL DEFAULT 0,
    degraded    INTEGER NOT NULL DEFAULT 0,
    partial     INTEGER NOT NULL DEFAULT 0,
    major       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (component, day)
);
-- The page reads the last 90 days of every component.
CREATE INDEX status_days_day ON status_days (day);
-- Incidents and maintenance windows, written by operators (the CLI), each
-- with its updates. `components` is a JSON array of component keys.
CREATE TABLE status_incidents (
    id                  TEXT PRIMARY KEY,
    kind                TEXT NOT NULL,
    name                TEXT NOT NULL,
    status              TEXT NOT NULL,
    impact              TEXT NOT NULL,
    components          TEXT NOT NULL,
    scheduled_for_ms    INTEGER,
    scheduled_until_ms  INTEGER,
    created_at_ms       INTEGER NOT NULL,
    updated_at_ms       INTEGER NOT NULL,
    resolved_at_ms      INTEGER
);
CREATE INDEX status_incidents_recent ON status_incidents (updated_at_ms);
CREATE INDEX status_incidents_open ON status_incidents (created_at_ms) WHERE resolved_at_ms IS NULL;
CREATE TABLE status_incident_updates (
    id            TEXT PRIMARY KEY,
    incident_id   TEXT NOT NULL REFERENCES status_incidents (id),
    status        TEXT NOT NULL,
    body          TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL
);
CREATE INDEX status_incident_updates_incident ON status_incident_updates (incident_id, created_at_ms);
