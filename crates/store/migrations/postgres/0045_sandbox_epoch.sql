-- A counter that moves whenever what a sandbox bearer check reads may have
-- changed: a client's status (revocation revokes its tokens) or a test
-- clock, whoever makes the change (a server instance or the CLI). Instances
-- keep token lookups in memory and poll this row to learn when to drop them,
-- as partner_epoch does for the partner ring. Token rows themselves never
-- change, and are deleted only after they expire, which every check sees
-- against the clock.
CREATE TABLE sandbox_epoch (
    id SMALLINT PRIMARY KEY CHECK (id = 1),
    n  BIGINT NOT NULL
);
INSERT INTO sandbox_epoch (id, n) VALUES (1, 0);

CREATE FUNCTION bump_sandbox_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sandbox_epoch SET n = n + 1 WHERE id = 1;
    RETURN NULL;
END
$$;
CREATE TRIGGER sandbox_clients_epoch AFTER UPDATE OR DELETE ON sandbox_clients
    FOR EACH STATEMENT EXECUTE FUNCTION bump_sandbox_epoch();
CREATE TRIGGER test_clocks_epoch AFTER INSERT OR UPDATE OR DELETE ON test_clocks
    FOR EACH STATEMENT EXECUTE FUNCTION bump_sandbox_epoch();
