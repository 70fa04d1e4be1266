-- The partner dashboard (issue #18). Staff are identity-provider users with
-- a role at one partner (a person may be staff of several). A dashboard
-- session is a random token kept only as its SHA-256, bound to one person
-- and one partner, with the CSRF token its forms carry.
CREATE TABLE dashboard_staff (
    partner_client_id TEXT NOT NULL REFERENCES partner_clients (client_id),
    user_id           TEXT NOT NULL REFERENCES sso_users (user_id),
    role              TEXT NOT NULL,
    created_at_ms     BIGINT NOT NULL,
    PRIMARY KEY (partner_client_id, user_id)
);
CREATE INDEX dashboard_staff_user ON dashboard_staff (user_id);
CREATE TABLE dashboard_sessions (
    token_hash        BYTEA PRIMARY KEY,
    user_id           TEXT NOT NULL REFERENCES sso_users (user_id),
    partner_client_id TEXT NOT NULL REFERENCES partner_clients (client_id),
    csrf              TEXT NOT NULL,
    created_at_ms     BIGINT NOT NULL,
    expires_at_ms     BIGINT NOT NULL,
    ended_at_ms       BIGINT
);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at_ms);
CREATE INDEX dashboard_sessions_person ON dashboard_sessions (user_id, partner_client_id) WHERE ended_at_ms IS NULL;
-- Every action taken from the dashboard, written in the transaction that
-- takes it: who, what, to what, in which environment, when.
CREATE TABLE dashboard_audit (
    id                TEXT PRIMARY KEY,
    partner_client_id TEXT NOT NULL REFERENCES partner_clients (client_id),
    user_id           TEXT NOT NULL,
    email             TEXT NOT NULL,
    action            TEXT NOT NULL,
    target            TEXT NOT NULL,
    environment       TEXT NOT NULL,
    at_ms             BIGINT NOT NULL
);
CREATE INDEX dashboard_audit_partner ON dashboard_audit (partner_client_id, at_ms, id);
-- The dashboard lists an endpoint's deliveries newest first.
CREATE INDEX deliveries_endpoint_recent ON deliveries (endpoint_id, id);
