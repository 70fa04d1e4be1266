-- The identity provider (issue 6): the people who sign in, relying-party
-- clients, sign-in tickets, browser sessions, consents, authorization codes,
-- token families and their refresh and access tokens. Its ES256 signing keys
-- live in signing_keys under purpose 'sso'.
-- Codes, sessions and tokens are found by a 16-byte selector and proven by
-- the SHA-256 of a 32-byte verifier; the token itself is never stored.

CREATE TABLE sso_users (
    user_id         TEXT PRIMARY KEY,          -- usr_…: the stable, opaque sub
    email           TEXT NOT NULL UNIQUE,      -- lower-cased
    password_hash   TEXT NOT NULL,             -- argon2id PHC string
    given_name      TEXT NOT NULL,
    family_name     TEXT NOT NULL,
    email_verified  INTEGER NOT NULL,
    company_number  TEXT NOT NULL,
    company_name    TEXT NOT NULL,
    company_role    TEXT NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    updated_at_ms   INTEGER NOT NULL
);

CREATE TABLE sso_clients (
    client_id                 TEXT PRIMARY KEY,
    name                      TEXT NOT NULL,
    secret_hash               BLOB,            -- NULL: a public client (PKCE alone)
    redirect_uris             TEXT NOT NULL,   -- JSON array, matched exactly
    post_logout_redirect_uris TEXT NOT NULL,   -- JSON array
    created_at_ms             INTEGER NOT NULL
);

-- A validated authorization request waiting for sign-in and consent; lapses
-- 120 s after /authorize.
CREATE TABLE sso_tickets (
    ticket_id        TEXT PRIMARY KEY,
    client_id        TEXT NOT NULL,
    redirect_uri     TEXT NOT NULL,
    scope            TEXT NOT NULL,
    state            TEXT NOT NULL,
    nonce            TEXT,
    code_challenge   TEXT NOT NULL,
    prompt           TEXT,
    max_age          INTEGER,
    login_hint       TEXT,
    browser_hash     BLOB NOT NULL,
    user_id          TEXT,
    auth_time_ms     INTEGER,
    session_selector BLOB,
    created_at_ms    INTEGER NOT NULL,
    expires_at_ms    INTEGER NOT NULL
);
CREATE INDEX sso_tickets_expiry ON sso_tickets (expires_at_ms);

CREATE TABLE sso_sessions (
    selector      BLOB PRIMARY KEY,
    verifier_hash BLOB NOT NULL,
    user_id       TEXT NOT NULL,
    auth_time_ms  INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    ended_at_ms   INTEGER
) WITHOUT ROWID;
CREATE INDEX sso_sessions_expiry ON sso_sessions (expires_at_ms);

CREATE TABLE sso_consents (
    user_id       TEXT NOT NULL,
    client_id     TEXT NOT NULL,
    scope         TEXT NOT NULL,
    granted_at_ms INTEGER NOT NULL,
    PRIMARY KEY (user_id, client_id)
) WITHOUT ROWID;

-- used_at_ms: spent (one presentation, successful or not); family_id: the
-- token family its successful redemption started, revoked if it is replayed.
CREATE TABLE sso_codes (
    selector         BLOB PRIMARY KEY,
    verifier_hash    BLOB NOT NULL,
    client_id        TEXT NOT NULL,
    redirect_uri     TEXT NOT NULL,
    code_challenge   TEXT NOT NULL,
    user_id          TEXT NOT NULL,
    scope            TEXT NOT NULL,
    nonce            TEXT,
    auth_time_ms     INTEGER NOT NULL,
    session_selector BLOB,
    created_at_ms    INTEGER NOT NULL,
    expires_at_ms    INTEGER NOT NULL,
    used_at_ms       INTEGER,
    family_id        TEXT
) WITHOUT ROWID;
CREATE INDEX sso_codes_expiry ON sso_codes (expires_at_ms);

-- Everything issued from one code; revoking the family revokes its tokens.
CREATE TABLE sso_families (
    family_id        TEXT PRIMARY KEY,
    client_id        TEXT NOT NULL,
    user_id          TEXT NOT NULL,
    scope            TEXT NOT NULL,
    auth_time_ms     INTEGER NOT NULL,
    session_selector BLOB,
    created_at_ms    INTEGER NOT NULL,
    revoked_at_ms    INTEGER
);
CREATE INDEX sso_families_session ON sso_families (session_selector);

-- Spent refresh tokens stay until they expire, so reuse is recognised.
CREATE TABLE sso_refresh_tokens (
    selector      BLOB PRIMARY KEY,
    verifier_hash BLOB NOT NULL,
    family_id     TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    used_at_ms    INTEGER
) WITHOUT ROWID;
CREATE INDEX sso_refresh_tokens_family ON sso_refresh_tokens (family_id);
CREATE INDEX sso_refresh_tokens_expiry ON sso_refresh_tokens (expires_at_ms);

CREATE TABLE sso_access_tokens (
    selector      BLOB PRIMARY KEY,
    verifier_hash BLOB NOT NULL,
    family_id     TEXT NOT NULL,
    scope         TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sso_access_tokens_family ON sso_access_tokens (family_id);
CREATE INDEX sso_access_tokens_expiry ON sso_access_tokens (expires_at_ms);
