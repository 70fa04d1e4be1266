-- A counter that moves whenever a token family is revoked or a person's
-- record changes, whoever makes the change. Instances keep access-token
-- grants in memory for /userinfo and poll this row to learn when to drop
-- them (as partner_epoch does for the partner ring).
CREATE TABLE sso_epoch (
    id SMALLINT PRIMARY KEY CHECK (id = 1),
    n  BIGINT NOT NULL
);
INSERT INTO sso_epoch (id, n) VALUES (1, 0);

CREATE FUNCTION bump_sso_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sso_epoch SET n = n + 1 WHERE id = 1;
    RETURN NULL;
END
$$;
CREATE TRIGGER sso_families_epoch AFTER UPDATE OR DELETE ON sso_families
    FOR EACH STATEMENT EXECUTE FUNCTION bump_sso_epoch();
CREATE TRIGGER sso_users_epoch AFTER UPDATE OR DELETE ON sso_users
    FOR EACH STATEMENT EXECUTE FUNCTION bump_sso_epoch();
