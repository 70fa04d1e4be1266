-- Each transfer names the loan it touches (issue #47 item 5), so a loan's
-- transfers and a page of its statement are read from one index in
-- posting order, at any size. Transfers written before this are given
-- theirs from their postings (`loan:{acc_…}:part`): the one rewrite the
-- immutable table allows, with its guard lifted for the migration only.
ALTER TABLE hub_ledger_transfers ADD COLUMN loan TEXT;
DROP TRIGGER hub_ledger_transfers_no_update;
UPDATE hub_ledger_transfers SET loan = (
    SELECT substr(p.account, 6, 30) FROM hub_ledger_postings p
    WHERE p.transfer_id = hub_ledger_transfers.id AND p.account LIKE 'loan:%'
    LIMIT 1);
CREATE TRIGGER hub_ledger_transfers_no_update BEFORE UPDATE ON hub_ledger_transfers
BEGIN
    SELECT RAISE(ABORT, 'the ledger is immutable: post a correcting transfer');
END;
CREATE INDEX hub_ledger_transfers_loan ON hub_ledger_transfers (loan, at_ms, id);
