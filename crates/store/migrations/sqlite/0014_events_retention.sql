-- Events are kept 30 days (hub seed, Events → Delivery contract §4): the
-- retention job finds the old ones by this index.
CREATE INDEX events_created ON events (created_at_ms);
