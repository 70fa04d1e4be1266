-- The double-entry ledger (issue #47, docs/guide/src/ledger.md). A transfer's
-- postings go in first and its row last; the row is refused unless its
-- postings exist and balance, and no posting joins a transfer once its row
-- is written. Both tables are immutable: a correction is a new transfer.
-- The balances are the running totals of the postings, kept in the same
-- commit, so a balance or a trial balance is read without summing them.
CREATE TABLE hub_ledger_postings (
    transfer_id  TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    account      TEXT NOT NULL,
    side         TEXT NOT NULL CHECK (side IN ('debit', 'credit')),
    amount_pence INTEGER NOT NULL CHECK (amount_pence > 0),
    PRIMARY KEY (transfer_id, seq)
);
CREATE INDEX hub_ledger_postings_account ON hub_ledger_postings (account, transfer_id);
CREATE TABLE hub_ledger_transfers (
    id         TEXT PRIMARY KEY,
    movement   TEXT NOT NULL,
    phase      TEXT NOT NULL CHECK (phase IN ('single', 'pending', 'post', 'void')),
    -- The pending transfer a post or void closes, once.
    pending_id TEXT UNIQUE,
    at_ms      INTEGER NOT NULL,
    body       TEXT NOT NULL
);
CREATE INDEX hub_ledger_transfers_at ON hub_ledger_transfers (at_ms);
CREATE TRIGGER hub_ledger_transfers_balanced BEFORE INSERT ON hub_ledger_transfers
WHEN NOT EXISTS (SELECT 1 FROM hub_ledger_postings WHERE transfer_id = NEW.id)
  OR (SELECT sum(CASE side WHEN 'debit' THEN amount_pence ELSE -amount_pence END)
        FROM hub_ledger_postings WHERE transfer_id = NEW.id) <> 0
BEGIN
    SELECT RAISE(ABORT, 'a transfer''s debits must equal its credits');
END;
CREATE TRIGGER hub_ledger_postings_closed BEFORE INSERT ON hub_ledger_postings
WHEN EXISTS (SELECT 1 FROM hub_ledger_transfers WHERE id = NEW.transfer_id)
BEGIN
    SELECT RAISE(ABORT, 'a written transfer takes no more postings');
END;
CREATE TRIGGER hub_ledger_postings_no_update BEFORE UPDATE ON hub_ledger_postings
BEGIN
    SELECT RAISE(ABORT, 'the ledger is immutable: post a correcting transfer');
END;
CREATE TRIGGER hub_ledger_postings_no_delete BEFORE DELETE ON hub_ledger_postings
BEGIN
    SELECT RAISE(ABORT, 'the ledger is immutable: post a correcting transfer');
END;
CREATE TRIGGER hub_ledger_transfers_no_update BEFORE UPDATE ON hub_ledger_transfers
BEGIN
    SELECT RAISE(ABORT, 'the ledger is immutable: post a correcting transfer');
END;
CREATE TRIGGER hub_ledger_transfers_no_delete BEFORE DELETE ON hub_ledger_transfers
BEGIN
    SELECT RAISE(ABORT, 'the ledger is immutable: post a correcting transfer');
END;
CREATE TABLE hub_ledger_balances (
    account         TEXT PRIMARY KEY,
    posted_debits   INTEGER NOT NULL DEFAULT 0,
    posted_credits  INTEGER NOT NULL DEFAULT 0,
    pending_debits  INTEGER NOT NULL DEFAULT 0,
    pending_credits INTEGER NOT NULL DEFAULT 0,
    -- A post or void gives back what its pending transfer held: never
    -- more than pending transfers hold (one that closes nothing is refused).
    CHECK (pending_debits >= 0 AND pending_credits >= 0)
);
