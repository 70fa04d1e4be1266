-- Daily reconciliation (issue #47, docs/guide/src/ledger.md). A transfer a rail
-- carries records the end-to-end id the bank knows the money by, so the
-- bank's statement can be matched to the ledger by it. Each mismatch the
-- comparison finds is an item, one per day, bank account and end-to-end
-- id however often the day is reconciled; its body is the domain's JSON.
ALTER TABLE hub_ledger_transfers ADD COLUMN reference TEXT;
CREATE INDEX hub_ledger_transfers_reference ON hub_ledger_transfers (reference);
CREATE TABLE hub_reconciliation_items (
    id            TEXT PRIMARY KEY,
    day           TEXT NOT NULL,
    resolution    TEXT NOT NULL,
    found_at_ms   BIGINT NOT NULL,
    body          TEXT NOT NULL
);
CREATE INDEX hub_reconciliation_items_day ON hub_reconciliation_items (day);
-- A day to reconcile: scheduled each day for the day before, or asked for
-- by `lendhub reconcile --date D` (which waits for `done_at_ms`). Any
-- instance's sweep runs it when due; the report is the domain's JSON.
CREATE TABLE hub_reconciliation_runs (
    day              TEXT PRIMARY KEY,
    due_at_ms        BIGINT NOT NULL,
    requested_at_ms  BIGINT NOT NULL,
    done_at_ms       BIGINT,
    body             TEXT
);
CREATE INDEX hub_reconciliation_runs_due ON hub_reconciliation_runs (due_at_ms)
    WHERE done_at_ms IS NULL;
