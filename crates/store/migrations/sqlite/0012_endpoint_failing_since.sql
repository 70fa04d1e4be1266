-- Since when every attempt to reach the endpoint has failed (on its owner's
-- clock); NULL while it answers. An endpoint is disabled after ~72 h of
-- failure of the endpoint itself, not when one delivery runs out its
-- schedule while others succeed.
ALTER TABLE webhook_endpoints ADD COLUMN failing_since_ms INTEGER;
