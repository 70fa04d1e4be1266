-- The servicing ledger (issue #16): append-only, enforced here and not only
-- in Rust — a correction is a new adjustment entry. The record is the
-- domain's JSON; amount and kind are columns for statements and audits.
CREATE TABLE hub_ledger (
    id           TEXT PRIMARY KEY,
    owner        TEXT NOT NULL,
    account_id   TEXT NOT NULL,
    kind         TEXT NOT NULL,
    amount_pence BIGINT NOT NULL,
    payment_id   TEXT,
    posted_at_ms BIGINT NOT NULL,
    body         TEXT NOT NULL
);
CREATE INDEX hub_ledger_account ON hub_ledger (owner, account_id, id);
CREATE FUNCTION hub_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: post an adjustment';
END;
$$;
CREATE TRIGGER hub_ledger_append_only BEFORE UPDATE OR DELETE ON hub_ledger
    FOR EACH ROW EXECUTE FUNCTION hub_ledger_append_only();
CREATE TRIGGER hub_ledger_no_truncate BEFORE TRUNCATE ON hub_ledger
    FOR EACH STATEMENT EXECUTE FUNCTION hub_ledger_append_only();
-- GET /accounts?status=…
CREATE INDEX hub_accounts_status ON hub_accounts (owner, status, id);
