-- `created_after` on an events page: one probe finds where the moment
-- falls in the owner's log (see sql::events_page).
CREATE INDEX events_owner_created ON events (owner, created_at_ms, seq);
