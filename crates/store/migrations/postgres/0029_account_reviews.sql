-- When the clock next looks at an account (issue #16): the next
-- instalment's due date while it performs. Keys the sweep.
ALTER TABLE hub_accounts ADD COLUMN due_at_ms BIGINT;
CREATE INDEX hub_accounts_due ON hub_accounts (due_at_ms) WHERE due_at_ms IS NOT NULL;
