-- A partner's OAuth client secret can be rolled with an overlap (issue #18,
-- the dashboard): the replaced secret keeps working until its expiry, so a
-- deployment can switch without a failed token request. One previous secret
-- at most; rolling again replaces it.
ALTER TABLE partner_clients ADD COLUMN previous_secret_hash BLOB;
ALTER TABLE partner_clients ADD COLUMN previous_secret_expires_at_ms INTEGER;
