-- A relying party's record moves the identity epoch too, so instances may
-- remember clients (every /authorize and /token reads one) and drop them
-- when any instance, or the operator's command line, changes one.
CREATE TRIGGER sso_clients_insert_epoch AFTER INSERT ON sso_clients
BEGIN UPDATE sso_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER sso_clients_update_epoch AFTER UPDATE ON sso_clients
BEGIN UPDATE sso_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER sso_clients_delete_epoch AFTER DELETE ON sso_clients
BEGIN UPDATE sso_epoch SET n = n + 1 WHERE id = 1; END;
