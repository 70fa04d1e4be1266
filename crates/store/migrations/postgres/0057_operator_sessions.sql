-- The lender's operations console (issue #47 item 6): a person whose
-- verified address the configuration names as a lender operator signs in
-- through lendhub's identity provider, as partner staff do, and holds a
-- session of its own, bound to no partner. The token is kept only as its
-- SHA-256.
CREATE TABLE operator_sessions (
    token_hash     BYTEA PRIMARY KEY,
    user_id        TEXT NOT NULL REFERENCES sso_users (user_id),
    csrf           TEXT NOT NULL,
    created_at_ms  BIGINT NOT NULL,
    expires_at_ms  BIGINT NOT NULL,
    ended_at_ms    BIGINT
);
CREATE INDEX operator_sessions_expiry ON operator_sessions (expires_at_ms);
-- The console lists reconciliation items newest first, open ones before
-- the rest, each part read through an index.
CREATE INDEX hub_reconciliation_items_open ON hub_reconciliation_items (day, id)
    WHERE resolution = 'open';
CREATE INDEX hub_reconciliation_items_recent ON hub_reconciliation_items (day, id);
