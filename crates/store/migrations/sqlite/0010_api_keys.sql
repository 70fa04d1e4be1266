-- A partner's secret API keys for the REST tier, one environment each. The
-- key is a selector (which finds the row) and a verifier of which only the
-- SHA-256 is kept. A key stops working at expires_at_ms: set to the moment
-- of revocation, or to the end of the overlap when it is rolled.
CREATE TABLE partner_api_keys (
    selector      BLOB PRIMARY KEY,
    verifier_hash BLOB NOT NULL,
    client_id     TEXT NOT NULL REFERENCES partner_clients (client_id),
    environment   TEXT NOT NULL,
    scopes        TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER
) WITHOUT ROWID;
CREATE INDEX partner_api_keys_client ON partner_api_keys (client_id, created_at_ms);

-- Instances remember keys as they remember partner clients: the partner
-- epoch tells them when to forget.
CREATE TRIGGER partner_api_keys_insert_epoch AFTER INSERT ON partner_api_keys
BEGIN UPDATE partner_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER partner_api_keys_update_epoch AFTER UPDATE ON partner_api_keys
BEGIN UPDATE partner_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER partner_api_keys_delete_epoch AFTER DELETE ON partner_api_keys
BEGIN UPDATE partner_epoch SET n = n + 1 WHERE id = 1; END;
