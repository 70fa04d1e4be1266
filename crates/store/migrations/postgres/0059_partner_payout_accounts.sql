-- The partner's own revenue share goes out over the payout rail (issue
-- #47 item 4), as its sub-accounts' payouts do: the account it is paid at,
-- per partner and environment, as the lender's operator recorded it. The
-- remittance itself is a payout with no sub-account (stored under '').
CREATE TABLE hub_partner_payout_accounts (
    owner         TEXT PRIMARY KEY,
    updated_at_ms BIGINT NOT NULL,
    body          TEXT NOT NULL
);
