-- Partner economics (issue #17): each partner's commercial terms, the
-- monthly statements and sub-account payouts, and the months waiting to be
-- closed on their owner's clock (drafted when the month ends, finalized on
-- its invoice date).
CREATE TABLE hub_partner_terms (
    client_id     TEXT PRIMARY KEY,
    updated_at_ms INTEGER NOT NULL,
    body          TEXT NOT NULL
);
CREATE TABLE hub_statements (
    id     TEXT PRIMARY KEY,
    owner  TEXT NOT NULL,
    period TEXT NOT NULL,
    status TEXT NOT NULL,
    body   TEXT NOT NULL,
    UNIQUE (owner, period)
);
CREATE INDEX hub_statements_owner ON hub_statements (owner, id);
CREATE INDEX hub_statements_period ON hub_statements (owner, period, id);
CREATE TABLE hub_payouts (
    id             TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    sub_account_id TEXT NOT NULL,
    period         TEXT NOT NULL,
    status         TEXT NOT NULL,
    body           TEXT NOT NULL,
    UNIQUE (owner, sub_account_id, period)
);
CREATE INDEX hub_payouts_owner ON hub_payouts (owner, id);
CREATE INDEX hub_payouts_sub_account ON hub_payouts (owner, sub_account_id, id);
CREATE INDEX hub_payouts_period ON hub_payouts (owner, period);
CREATE TABLE hub_billing_due (
    owner     TEXT NOT NULL,
    period    TEXT NOT NULL,
    due_at_ms INTEGER NOT NULL,
    version   INTEGER NOT NULL,
    body      TEXT NOT NULL,
    PRIMARY KEY (owner, period)
);
CREATE INDEX hub_billing_due_at ON hub_billing_due (due_at_ms);
-- The close reads an owner's accounts opened in a month (the CLI finds the
-- owners that have any).
CREATE INDEX hub_accounts_opened ON hub_accounts (opened_at_ms, owner);
-- Corrections of finalized months, each settled with a later statement.
CREATE TABLE hub_statement_adjustments (
    id         TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    applies_to TEXT NOT NULL,
    body       TEXT NOT NULL
);
CREATE INDEX hub_statement_adjustments_applies ON hub_statement_adjustments (owner, applies_to, id);
