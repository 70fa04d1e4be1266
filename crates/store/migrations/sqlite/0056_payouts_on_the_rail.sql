-- A sub-account's payout goes out over the payout rail once its statement
-- is final (issue #47 item 4): it falls due on the statement's pay date
-- (`due_at_ms`, on its owner's clock, for the sweep), and every move after
-- finalization commits only over the version it read.
ALTER TABLE hub_payouts ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE hub_payouts ADD COLUMN due_at_ms BIGINT;
CREATE INDEX hub_payouts_due ON hub_payouts (due_at_ms) WHERE due_at_ms IS NOT NULL;
