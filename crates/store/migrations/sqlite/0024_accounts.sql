-- Servicing accounts (issue #15 opens them when a loan is funded; #16
-- services them). The record is the domain's JSON.
CREATE TABLE hub_accounts (
    id             TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    application_id TEXT NOT NULL UNIQUE,
    status         TEXT NOT NULL,
    opened_at_ms   INTEGER NOT NULL,
    body           TEXT NOT NULL
);
CREATE INDEX hub_accounts_owner ON hub_accounts (owner, id);
