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
    secret_hash                   BYTEA NOT NULL,
    previous_secret_hash          BYTEA,
    previous_secret_expires_at_ms BIGINT,
    created_at_ms                 BIGINT NOT NULL,
    revoked_at_ms                 BIGINT
);
CREATE INDEX partner_oauth_clients_partner ON partner_oauth_clients (partner_client_id, created_at_ms);

-- Instances remember clients: the partner epoch tells them when to forget.
CREATE TRIGGER partner_oauth_clients_epoch AFTER INSERT OR UPDATE OR DELETE ON partner_oauth_clients
    FOR EACH STATEMENT EXECUTE FUNCTION bump_partner_epoch();
