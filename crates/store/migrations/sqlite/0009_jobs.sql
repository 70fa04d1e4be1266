-- One lease shape for every queue: a lease names its holder, so a restarted
-- instance gives back what its previous run held instead of waiting for the
-- lease to lapse.
ALTER TABLE deliveries ADD COLUMN lease_holder TEXT;
ALTER TABLE mail_outbox ADD COLUMN lease_holder TEXT;

-- The subscription the domain matches events against, as on PostgreSQL
-- (a JSON array here, a text array there).
ALTER TABLE webhook_endpoints ADD COLUMN enabled_events TEXT NOT NULL DEFAULT '["*"]';
UPDATE webhook_endpoints SET enabled_events = json_extract(body, '$.enabled_events');
