-- The live partner ring: partner projects, the keys that sign their access
-- tokens (private halves sealed with the master key) and revoked tokens.
CREATE TABLE partner_clients (
    client_id     TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    secret_hash   BLOB NOT NULL,
    scopes        TEXT NOT NULL,
    tier          TEXT NOT NULL,
    -- the project's sandbox client, whose applications its tools may explain
    sandbox_client_id TEXT,
    status        TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);

-- purpose: which issuer signs with it ('partner'); state: 'current' signs new
-- tokens, 'previous' only verifies tokens issued before the last rotation.
CREATE TABLE signing_keys (
    kid            TEXT PRIMARY KEY,
    purpose        TEXT NOT NULL,
    state          TEXT NOT NULL,
    sealed_private BLOB NOT NULL,
    public_key     BLOB NOT NULL,
    created_at_ms  INTEGER NOT NULL
);
CREATE UNIQUE INDEX signing_keys_one_current ON signing_keys (purpose) WHERE state = 'current';

-- Kept until the token would have expired anyway.
CREATE TABLE revoked_tokens (
    jti           TEXT PRIMARY KEY,
    client_id     TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    revoked_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at_ms);
