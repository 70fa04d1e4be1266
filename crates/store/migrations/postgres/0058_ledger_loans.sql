-- Each transfer names the loan it touches (issue #47 item 5), so a loan's
-- transfers and a page of its statement are read from one index in
-- posting order, at any size. Transfers written before this are given
-- theirs from their postings (`loan:{acc_…}:part`): the one rewrite the
-- immutable table allows, with its guard lifted for the migration only.
ALTER TABLE hub_ledger_transfers ADD COLUMN loan TEXT;
ALTER TABLE hub_ledger_transfers DISABLE TRIGGER hub_ledger_transfers_immutable;
UPDATE hub_ledger_transfers SET loan = (
    SELECT substr(p.account, 6, 30) FROM hub_ledger_postings p
    WHERE p.transfer_id = hub_ledger_transfers.id AND p.account LIKE 'loan:%'
    LIMIT 1);
ALTER TABLE hub_ledger_transfers ENABLE TRIGGER hub_ledger_transfers_immutable;
CREATE INDEX hub_ledger_transfers_loan ON hub_ledger_transfers (loan, at_ms, id);
