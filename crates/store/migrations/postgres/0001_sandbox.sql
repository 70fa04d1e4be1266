-- The sandbox on PostgreSQL: the same tables as the SQLite schema, with one
-- difference that several writers on one database need: events carry a
-- per-owner sequence assigned under a row lock on event_heads, so an owner's
-- events become visible in sequence order and a cursor never skips an event
-- that commits late.

CREATE TABLE sandbox_clients (
    client_id     TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    secret_hash   BYTEA NOT NULL,
    scopes        TEXT NOT NULL,
    status        TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    revoked_at_ms BIGINT
);

-- selector: issue time (ms) + 80 random bits, so inserts append; only the
-- SHA-256 of the token's verifier half is stored.
CREATE TABLE sandbox_tokens (
    selector      BYTEA PRIMARY KEY,
    verifier_hash BYTEA NOT NULL,
    client_id     TEXT NOT NULL REFERENCES sandbox_clients (client_id),
    scopes        TEXT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX sandbox_tokens_expiry ON sandbox_tokens (expires_at_ms);
CREATE INDEX sandbox_tokens_client ON sandbox_tokens (client_id);

CREATE TABLE applications (
    id            TEXT PRIMARY KEY,
    owner         TEXT NOT NULL,
    status        TEXT NOT NULL,
    version       BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    -- the domain record, and the JSON clients are served (rendered at write time)
    body          TEXT NOT NULL,
    rendered      TEXT NOT NULL
);
CREATE INDEX applications_owner ON applications (owner, created_at_ms);

CREATE TABLE payments (
    id             TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    application_id TEXT NOT NULL,
    created_at_ms  BIGINT NOT NULL,
    body           TEXT NOT NULL
);
CREATE INDEX payments_application ON payments (application_id);

CREATE TABLE webhook_endpoints (
    id             TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    status         TEXT NOT NULL,
    enabled_events TEXT[] NOT NULL,
    sealed_secret  BYTEA NOT NULL,
    created_at_ms  BIGINT NOT NULL,
    body           TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_owner ON webhook_endpoints (owner);

CREATE TABLE event_heads (
    owner    TEXT PRIMARY KEY,
    last_seq BIGINT NOT NULL
);

CREATE TABLE events (
    owner         TEXT NOT NULL,
    seq           BIGINT NOT NULL,
    id            TEXT NOT NULL UNIQUE,
    type          TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    body          TEXT NOT NULL,
    PRIMARY KEY (owner, seq)
);
CREATE INDEX events_owner_type ON events (owner, type, seq);

CREATE TABLE deliveries (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id       TEXT NOT NULL,
    endpoint_id    TEXT NOT NULL,
    owner          TEXT NOT NULL,
    state          TEXT NOT NULL,
    attempt        INTEGER NOT NULL,
    first_due_ms   BIGINT NOT NULL,
    due_ms         BIGINT NOT NULL,
    lease_until_ms BIGINT,
    last_status    INTEGER,
    last_error     TEXT,
    updated_at_ms  BIGINT NOT NULL
);
-- Only pending rows are ever scanned for work: keep that index small.
CREATE INDEX deliveries_pending ON deliveries (due_ms, id) WHERE state = 'pending';

CREATE TABLE idempotency_keys (
    owner         TEXT NOT NULL,
    key           TEXT NOT NULL,
    fingerprint   BYTEA NOT NULL,
    status        INTEGER NOT NULL,
    body          BYTEA NOT NULL,
    created_at_ms BIGINT NOT NULL,
    PRIMARY KEY (owner, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at_ms);
