-- A partner's additional OAuth clients (issue #18, the dashboard): each is
-- its own client id and secret acting as the partner (its tenant, its rate
-- limit, its statement), with scopes that are at most the partner's. A
-- deployment or a vendor gets a credential of its own that can be rolled or
-- revoked without touching the partner's. Revoked clients are kept, for the
-- audit log's sake; only the keyed hash of a secret is stored.
CREATE TABLE partner_oauth_clients (
    client_id                     TEXT PRIMARY KEY,
    partner_client_id             TEXT NOT NULL REFERENCES partner_clients (client_id),
    name                          TEXT NOT NULL,
    scopes                        TEXT NOT NULL,
    secret_hash                   BLOB NOT NULL,
    previous_secret_hash          BLOB,
    previous_secret_expires_at_ms INTEGER,
    created_at_ms                 INTEGER NOT NULL,
    revoked_at_ms                 INTEGER
) WITHOUT ROWID;
CREATE INDEX partner_oauth_clients_partner ON partner_oauth_clients (partner_client_id, created_at_ms);

-- Instances remember clients: the partner epoch tells them when to forget.
CREATE TRIGGER partner_oauth_clients_insert_epoch AFTER INSERT ON partner_oauth_clients
BEGIN UPDATE partner_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER partner_oauth_clients_update_epoch AFTER UPDATE ON partner_oauth_clients
BEGIN UPDATE partner_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER partner_oauth_clients_delete_epoch AFTER DELETE ON partner_oauth_clients
BEGIN UPDATE partner_epoch SET n = n + 1 WHERE id = 1; END;
