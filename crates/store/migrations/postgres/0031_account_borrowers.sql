-- Whose company an account lends to, in its environment
-- (`{company_number}/{live|test}`): a person signed in at lendhub's
-- identity provider reads their company's accounts across partners by it
-- (issue #16).
ALTER TABLE hub_accounts ADD COLUMN borrower TEXT;
UPDATE hub_accounts SET borrower = (body::jsonb)->>'company_number' || '/' ||
    CASE WHEN owner LIKE '%/live' OR owner LIKE '%/live/%' THEN 'live' ELSE 'test' END;
CREATE INDEX hub_accounts_borrower ON hub_accounts (borrower, id);
CREATE INDEX hub_accounts_borrower_status ON hub_accounts (borrower, status, id);
