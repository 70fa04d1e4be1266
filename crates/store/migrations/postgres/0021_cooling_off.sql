-- A declined company's cooling-off (issue #15): its newest declined
-- application is found by company number, which so far lived only in the
-- JSON body.
ALTER TABLE hub_applications ADD COLUMN company_number TEXT;
UPDATE hub_applications SET company_number = (body::jsonb) ->> 'company_number';
CREATE INDEX hub_applications_owner_company
    ON hub_applications (owner, company_number, status, id);
