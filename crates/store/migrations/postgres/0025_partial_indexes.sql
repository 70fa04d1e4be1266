-- The cooling-off lookup and the underwriting queue read only declined and
-- in-review applications: index only those, so that creating an
-- application (the tier's hottest write) maintains neither index.
DROP INDEX hub_applications_owner_company;
CREATE INDEX hub_applications_declined
    ON hub_applications (owner, company_number, id) WHERE status = 'declined';
DROP INDEX hub_applications_status;
CREATE INDEX hub_applications_in_review
    ON hub_applications (id) WHERE status = 'in_review';
