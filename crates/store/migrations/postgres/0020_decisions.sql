-- The REST tier's decisions (issue #15), and the operator's per-partner
-- switch for white-label journeys in the live environment.
CREATE TABLE hub_decisions (
    id             TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    application_id TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    decided_at_ms  BIGINT NOT NULL,
    body           TEXT NOT NULL
);
CREATE INDEX hub_decisions_owner ON hub_decisions (owner, id);
CREATE INDEX hub_decisions_owner_outcome ON hub_decisions (owner, outcome, id);

ALTER TABLE partner_clients ADD COLUMN white_label BOOLEAN NOT NULL DEFAULT false;
