-- Payment links' payments (issue #16). The record is the domain's JSON;
-- due_at_ms keys the sweep (a pending link's expiry, a processing
-- payment's settlement).
CREATE TABLE hub_payments (
    id         TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    account_id TEXT NOT NULL,
    status     TEXT NOT NULL,
    version    INTEGER NOT NULL,
    due_at_ms  INTEGER,
    body       TEXT NOT NULL
);
CREATE INDEX hub_payments_owner ON hub_payments (owner, id);
CREATE INDEX hub_payments_account ON hub_payments (owner, account_id, id);
CREATE INDEX hub_payments_status ON hub_payments (owner, status, id);
CREATE INDEX hub_payments_account_status ON hub_payments (owner, account_id, status, id);
CREATE INDEX hub_payments_due ON hub_payments (due_at_ms) WHERE due_at_ms IS NOT NULL;
