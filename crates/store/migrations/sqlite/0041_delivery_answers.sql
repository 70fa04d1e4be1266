-- What a delivery's latest attempt heard back beyond the status (issue #18,
-- the dashboard): how long the receiver took to answer, and the first bytes
-- of its body, as text.
ALTER TABLE deliveries ADD COLUMN last_latency_ms INTEGER;
ALTER TABLE deliveries ADD COLUMN last_response TEXT;
