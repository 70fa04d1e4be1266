-- A counter that moves whenever a token family is revoked or a person's
-- record changes, whoever makes the change. Instances keep access-token
-- grants in memory for /userinfo and poll this row to learn when to drop
-- them (as partner_epoch does for the partner ring).
CREATE TABLE sso_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO sso_epoch (id, n) VALUES (1, 0);

CREATE TRIGGER sso_families_update_epoch AFTER UPDATE ON sso_families
BEGIN UPDATE sso_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER sso_families_delete_epoch AFTER DELETE ON sso_families
BEGIN UPDATE sso_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER sso_users_update_epoch AFTER UPDATE ON sso_users
BEGIN UPDATE sso_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER sso_users_delete_epoch AFTER DELETE ON sso_users
BEGIN UPDATE sso_epoch SET n = n + 1 WHERE id = 1; END;
