-- A counter that moves whenever a partner client or a token revocation
-- changes, whoever makes the change (a server instance or the CLI). Instances
-- keep partners and revocations in memory and poll this one row to learn
-- when to drop them; the triggers mean no write path can forget to move it.
CREATE TABLE partner_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO partner_epoch (id, n) VALUES (1, 0);

CREATE TRIGGER partner_clients_insert_epoch AFTER INSERT ON partner_clients
BEGIN UPDATE partner_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER partner_clients_update_epoch AFTER UPDATE ON partner_clients
BEGIN UPDATE partner_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER partner_clients_delete_epoch AFTER DELETE ON partner_clients
BEGIN UPDATE partner_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER revoked_tokens_insert_epoch AFTER INSERT ON revoked_tokens
BEGIN UPDATE partner_epoch SET n = n + 1 WHERE id = 1; END;
