-- Public halves of the Ed25519 keys partners sign money-moving requests with
-- (docs/guide/src/request-signing.md). A revoked key stops verifying at once.
CREATE TABLE partner_request_keys (
    key_id        TEXT PRIMARY KEY,
    client_id     TEXT NOT NULL REFERENCES partner_clients (client_id),
    public_key    BYTEA NOT NULL,
    created_at_ms BIGINT NOT NULL,
    revoked_at_ms BIGINT
);
CREATE INDEX partner_request_keys_client ON partner_request_keys (client_id, created_at_ms);
