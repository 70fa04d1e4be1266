-- Payment schedules and the mandates their collections run under (issue
-- #16). Records are the domain's JSON; due_at_ms keys the scheduler (the
-- start of an active schedule's next due date).
CREATE TABLE hub_schedules (
    id         TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    account_id TEXT NOT NULL,
    status     TEXT NOT NULL,
    version    BIGINT NOT NULL,
    due_at_ms  BIGINT,
    body       TEXT NOT NULL
);
CREATE INDEX hub_schedules_owner ON hub_schedules (owner, id);
CREATE INDEX hub_schedules_due ON hub_schedules (due_at_ms) WHERE due_at_ms IS NOT NULL;

CREATE TABLE hub_mandates (
    id         TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    account_id TEXT NOT NULL,
    status     TEXT NOT NULL,
    version    BIGINT NOT NULL,
    body       TEXT NOT NULL
);
CREATE INDEX hub_mandates_owner ON hub_mandates (owner, id);

-- A schedule's instalment is one payment, whichever instance initiated it:
-- the schedule's versioned update already orders them; this says so in
-- the database too.
ALTER TABLE hub_payments ADD COLUMN schedule_id TEXT;
ALTER TABLE hub_payments ADD COLUMN instalment BIGINT;
CREATE UNIQUE INDEX hub_payments_instalment ON hub_payments (schedule_id, instalment)
    WHERE schedule_id IS NOT NULL;
