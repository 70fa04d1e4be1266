-- The dashboard's search (issue #51 item 4): an application is found by any
-- part of its id, reference, company number or company name, case-folded
-- into one column a page filters with LIKE.
ALTER TABLE hub_applications ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
UPDATE hub_applications SET search_text = lower(
    id || ' ' || coalesce(reference, '') || ' ' || coalesce(company_number, '')
    || ' ' || coalesce((body::jsonb) ->> 'company_name', ''));
