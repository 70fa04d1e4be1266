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
    amount_pence BIGINT NOT NULL CHECK (amount_pence > 0),
    PRIMARY KEY (transfer_id, seq)
);
CREATE INDEX hub_ledger_postings_account ON hub_ledger_postings (account, transfer_id);
CREATE TABLE hub_ledger_transfers (
    id         TEXT PRIMARY KEY,
    movement   TEXT NOT NULL,
    phase      TEXT NOT NULL CHECK (phase IN ('single', 'pending', 'post', 'void')),
    -- The pending transfer a post or void closes, once.
    pending_id TEXT UNIQUE,
    at_ms      BIGINT NOT NULL,
    body       TEXT NOT NULL
);
CREATE INDEX hub_ledger_transfers_at ON hub_ledger_transfers (at_ms);
CREATE FUNCTION hub_ledger_transfer_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM hub_ledger_postings WHERE transfer_id = NEW.id)
       OR (SELECT sum(CASE side WHEN 'debit' THEN amount_pence ELSE -amount_pence END)
             FROM hub_ledger_postings WHERE transfer_id = NEW.id) <> 0 THEN
        RAISE EXCEPTION 'a transfer''s debits must equal its credits';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER hub_ledger_transfers_balanced BEFORE INSERT ON hub_ledger_transfers
    FOR EACH ROW EXECUTE FUNCTION hub_ledger_transfer_balanced();
CREATE FUNCTION hub_ledger_postings_closed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM hub_ledger_transfers WHERE id = NEW.transfer_id) THEN
        RAISE EXCEPTION 'a written transfer takes no more postings';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER hub_ledger_postings_closed BEFORE INSERT ON hub_ledger_postings
    FOR EACH ROW EXECUTE FUNCTION hub_ledger_postings_closed();
CREATE FUNCTION hub_ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is immutable: post a correcting transfer';
END;
$$;
CREATE TRIGGER hub_ledger_postings_immutable BEFORE UPDATE OR DELETE ON hub_ledger_postings
    FOR EACH ROW EXECUTE FUNCTION hub_ledger_immutable();
CREATE TRIGGER hub_ledger_postings_no_truncate BEFORE TRUNCATE ON hub_ledger_postings
    FOR EACH STATEMENT EXECUTE FUNCTION hub_ledger_immutable();
CREATE TRIGGER hub_ledger_transfers_immutable BEFORE UPDATE OR DELETE ON hub_ledger_transfers
    FOR EACH ROW EXECUTE FUNCTION hub_ledger_immutable();
CREATE TRIGGER hub_ledger_transfers_no_truncate BEFORE TRUNCATE ON hub_ledger_transfers
    FOR EACH STATEMENT EXECUTE FUNCTION hub_ledger_immutable();
CREATE TABLE hub_ledger_balances (
    account         TEXT PRIMARY KEY,
    posted_debits   BIGINT NOT NULL DEFAULT 0,
    posted_credits  BIGINT NOT NULL DEFAULT 0,
    pending_debits  BIGINT NOT NULL DEFAULT 0,
    pending_credits BIGINT NOT NULL DEFAULT 0,
    -- A post or void gives back what its pending transfer held: never
    -- more than pending transfers hold (one that closes nothing is refused).
    CHECK (pending_debits >= 0 AND pending_credits >= 0)
);
