CREATE TABLE sandbox_clients (
    client_id     TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    secret_hash   BLOB NOT NULL,
    scopes        TEXT NOT NULL,
    status        TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    revoked_at_ms INTEGER
);

-- selector: issue time (ms) + 80 random bits, so inserts append; only the
-- SHA-256 of the token's verifier half is stored.
CREATE TABLE sandbox_tokens (
    selector      BLOB PRIMARY KEY,
    verifier_hash BLOB NOT NULL,
    client_id     TEXT NOT NULL REFERENCES sandbox_clients (client_id),
    scopes        TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sandbox_tokens_expiry ON sandbox_tokens (expires_at_ms);

CREATE TABLE applications (
    id            TEXT PRIMARY KEY,
    owner         TEXT NOT NULL,
    status        TEXT NOT NULL,
    version       INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL,
    -- the domain record, and the JSON clients are served (rendered at write time)
    body          TEXT NOT NULL,
    rendered      TEXT NOT NULL
);
CREATE INDEX applications_owner ON applications (owner, created_at_ms);

CREATE TABLE payments (
    id             TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    application_id TEXT NOT NULL,
    created_at_ms  INTEGER NOT NULL,
    body           TEXT NOT NULL
);
CREATE INDEX payments_application ON payments (application_id);

CREATE TABLE webhook_endpoints (
    id            TEXT PRIMARY KEY,
    owner         TEXT NOT NULL,
    status        TEXT NOT NULL,
    sealed_secret BLOB NOT NULL,
    created_at_ms INTEGER NOT NULL,
    body          TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_owner ON webhook_endpoints (owner);

CREATE TABLE events (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    owner         TEXT NOT NULL,
    type          TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    body          TEXT NOT NULL
);
CREATE INDEX events_owner ON events (owner, seq);
CREATE INDEX events_owner_type ON events (owner, type, seq);

CREATE TABLE deliveries (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id       TEXT NOT NULL,
    endpoint_id    TEXT NOT NULL,
    owner          TEXT NOT NULL,
    state          TEXT NOT NULL,
    attempt        INTEGER NOT NULL,
    first_due_ms   INTEGER NOT NULL,
    due_ms         INTEGER NOT NULL,
    lease_until_ms INTEGER,
    last_status    INTEGER,
    last_error     TEXT,
    updated_at_ms  INTEGER NOT NULL
);
CREATE INDEX deliveries_pending ON deliveries (state, due_ms);

CREATE TABLE idempotency_keys (
    owner         TEXT NOT NULL,
    key           TEXT NOT NULL,
    fingerprint   BLOB NOT NULL,
    status        INTEGER NOT NULL,
    body          BLOB NOT NULL,
    created_at_ms INTEGER NOT NULL,
    PRIMARY KEY (owner, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at_ms);
