-- Owners invite staff from the dashboard (issue #18): an invitation names
-- an e-mail address and a role; the person it names accepts it by signing
-- in with that (verified) address before it expires. Nothing about who has
-- an identity-provider account is revealed to the owner.
CREATE TABLE dashboard_invitations (
    id                TEXT PRIMARY KEY,
    partner_client_id TEXT NOT NULL REFERENCES partner_clients (client_id),
    email             TEXT NOT NULL,
    role              TEXT NOT NULL,
    invited_by        TEXT NOT NULL,
    created_at_ms     INTEGER NOT NULL,
    expires_at_ms     INTEGER NOT NULL,
    ended_at_ms       INTEGER,
    accepted_by       TEXT
);
CREATE INDEX dashboard_invitations_partner ON dashboard_invitations (partner_client_id, created_at_ms);
CREATE INDEX dashboard_invitations_open ON dashboard_invitations (email) WHERE ended_at_ms IS NULL;
