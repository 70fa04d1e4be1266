-- A counter that moves whenever what a sandbox bearer check reads may have
-- changed: a client's status (revocation revokes its tokens) or a test
-- clock, whoever makes the change (a server instance or the CLI). Instances
-- keep token lookups in memory and poll this row to learn when to drop them,
-- as partner_epoch does for the partner ring. Token rows themselves never
-- change, and are deleted only after they expire, which every check sees
-- against the clock.
CREATE TABLE sandbox_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO sandbox_epoch (id, n) VALUES (1, 0);

CREATE TRIGGER sandbox_clients_update_epoch AFTER UPDATE ON sandbox_clients
BEGIN UPDATE sandbox_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER sandbox_clients_delete_epoch AFTER DELETE ON sandbox_clients
BEGIN UPDATE sandbox_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER test_clocks_insert_epoch AFTER INSERT ON test_clocks
BEGIN UPDATE sandbox_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER test_clocks_update_epoch AFTER UPDATE ON test_clocks
BEGIN UPDATE sandbox_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER test_clocks_delete_epoch AFTER DELETE ON test_clocks
BEGIN UPDATE sandbox_epoch SET n = n + 1 WHERE id = 1; END;
