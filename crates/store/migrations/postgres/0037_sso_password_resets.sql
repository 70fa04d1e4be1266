-- Password resets by e-mail (issue #19). Every request leaves a row, whether
-- or not an account matched, so both cost the same write and neither the
-- timing nor the answer tells which addresses have accounts. The link's
-- token is kept only as its SHA-256; a row is good once, until it expires.
CREATE TABLE sso_password_resets (
    reset_id      TEXT PRIMARY KEY,
    token_hash    BYTEA UNIQUE,
    user_id       TEXT REFERENCES sso_users (user_id),
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    used_at_ms    BIGINT
);
CREATE INDEX sso_password_resets_unused ON sso_password_resets (user_id) WHERE used_at_ms IS NULL;
CREATE INDEX sso_password_resets_expiry ON sso_password_resets (expires_at_ms);
-- A reset or a change ends what the person has open, on a request path:
-- each live row of theirs found through an index of live rows.
CREATE INDEX sso_sessions_user ON sso_sessions (user_id) WHERE ended_at_ms IS NULL;
CREATE INDEX sso_families_user ON sso_families (user_id) WHERE revoked_at_ms IS NULL;
CREATE INDEX sso_codes_user ON sso_codes (user_id) WHERE used_at_ms IS NULL;
