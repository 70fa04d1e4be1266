-- A counter that moves whenever a partner client or a token revocation
-- changes, whoever makes the change (a server instance or the CLI). Instances
-- keep partners and revocations in memory and poll this one row to learn
-- when to drop them; the triggers mean no write path can forget to move it.
-- The row lock orders the increments as the commits, so a poller that sees
-- a value has seen every change made before it.
CREATE TABLE partner_epoch (
    id SMALLINT PRIMARY KEY CHECK (id = 1),
    n  BIGINT NOT NULL
);
INSERT INTO partner_epoch (id, n) VALUES (1, 0);

CREATE FUNCTION bump_partner_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE partner_epoch SET n = n + 1 WHERE id = 1;
    RETURN NULL;
END
$$;
CREATE TRIGGER partner_clients_epoch AFTER INSERT OR UPDATE OR DELETE ON partner_clients
    FOR EACH STATEMENT EXECUTE FUNCTION bump_partner_epoch();
CREATE TRIGGER revoked_tokens_epoch AFTER INSERT ON revoked_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION bump_partner_epoch();
