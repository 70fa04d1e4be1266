-- The servicing ledger (issue #16): append-only, enforced here and not only
-- in Rust — a correction is a new adjustment entry. The record is the
-- domain's JSON; amount and kind are columns for statements and audits.
CREATE TABLE hub_ledger (
    id           TEXT PRIMARY KEY,
    owner        TEXT NOT NULL,
    account_id   TEXT NOT NULL,
    kind         TEXT NOT NULL,
    amount_pence INTEGER NOT NULL,
    payment_id   TEXT,
    posted_at_ms INTEGER NOT NULL,
    body         TEXT NOT NULL
);
CREATE INDEX hub_ledger_account ON hub_ledger (owner, account_id, id);
CREATE TRIGGER hub_ledger_no_update BEFORE UPDATE ON hub_ledger
BEGIN
    SELECT RAISE(ABORT, 'the ledger is append-only: post an adjustment');
END;
CREATE TRIGGER hub_ledger_no_delete BEFORE DELETE ON hub_ledger
BEGIN
    SELECT RAISE(ABORT, 'the ledger is append-only: post an adjustment');
END;
-- GET /accounts?status=…
CREATE INDEX hub_accounts_status ON hub_accounts (owner, status, id);
