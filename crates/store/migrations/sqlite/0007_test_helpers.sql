-- Sandbox test helpers (issue 7).

-- Each client's test clock: an offset (ms) from the service clock. It only
-- grows, until a reset puts it back to 0. Kept with the client, so the token
-- read that authenticates a request also yields the caller's clock.
ALTER TABLE sandbox_clients ADD COLUMN clock_offset_ms INTEGER NOT NULL DEFAULT 0;

-- When the simulated underwriter settles a referred application, on its
-- owner's clock; NULL for every other application.
ALTER TABLE applications ADD COLUMN review_due_ms INTEGER;
-- Referred before this migration: due a day after their decision (made when
-- they were created), as for new ones.
UPDATE applications SET review_due_ms = created_at_ms + 86400000 WHERE status = 'referred';
CREATE INDEX applications_review_due ON applications (review_due_ms) WHERE review_due_ms IS NOT NULL;

-- A disabled endpoint's pending deliveries are ended; a reset removes an
-- owner's payments and deliveries.
CREATE INDEX deliveries_endpoint ON deliveries (endpoint_id, state);
CREATE INDEX deliveries_owner ON deliveries (owner);
CREATE INDEX payments_owner ON payments (owner);
