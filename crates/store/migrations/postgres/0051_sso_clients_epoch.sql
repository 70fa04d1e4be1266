-- A relying party's record moves the identity epoch too, so instances may
-- remember clients (every /authorize and /token reads one) and drop them
-- when any instance, or the operator's command line, changes one.
CREATE TRIGGER sso_clients_epoch AFTER INSERT OR UPDATE OR DELETE ON sso_clients
    FOR EACH STATEMENT EXECUTE FUNCTION bump_sso_epoch();
