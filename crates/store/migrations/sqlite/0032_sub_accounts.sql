-- A partner's sub-accounts (issue #17), and the one an account's loan was
-- introduced through (for GET /accounts?sub_account_id=…).
CREATE TABLE hub_sub_accounts (
    id            TEXT PRIMARY KEY,
    owner         TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    body          TEXT NOT NULL
);
CREATE INDEX hub_sub_accounts_owner ON hub_sub_accounts (owner, id);
ALTER TABLE hub_accounts ADD COLUMN sub_account_id TEXT;
CREATE INDEX hub_accounts_sub_account ON hub_accounts (owner, sub_account_id, id);
CREATE INDEX hub_accounts_status_sub_account ON hub_accounts (owner, status, sub_account_id, id);
