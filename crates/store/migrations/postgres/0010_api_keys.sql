-- A partner's secret API keys for the REST tier, one environment each. The
-- key is a selector (which finds the row) and a verifier of which only the
-- SHA-256 is kept. A key stops working at expires_at_ms: set to the moment
-- of revocation, or to the end of the overlap when it is rolled.
CREATE TABLE partner_api_keys (
    selector      BYTEA PRIMARY KEY,
    verifier_hash BYTEA NOT NULL,
    client_id     TEXT NOT NULL REFERENCES partner_clients (client_id),
    environment   TEXT NOT NULL,
    scopes        TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT
);
CREATE INDEX partner_api_keys_client ON partner_api_keys (client_id, created_at_ms);

-- Instances remember keys as they remember partner clients: the partner
-- epoch tells them when to forget.
CREATE TRIGGER partner_api_keys_epoch AFTER INSERT OR UPDATE OR DELETE ON partner_api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION bump_partner_epoch();
