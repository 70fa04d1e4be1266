-- What the application sweep reads (issue #15): not only when an open
-- application expires, but also when a test-environment referral is due for
-- the simulated underwriter. The column says so.
DROP INDEX hub_applications_open;
ALTER TABLE hub_applications RENAME COLUMN open_until_ms TO due_at_ms;
CREATE INDEX hub_applications_due ON hub_applications (due_at_ms)
    WHERE due_at_ms IS NOT NULL;
