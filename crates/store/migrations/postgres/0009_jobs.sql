-- One lease shape for every queue: a lease names its holder, so a restarted
-- instance gives back what its previous run held instead of waiting for the
-- lease to lapse.
ALTER TABLE deliveries ADD COLUMN lease_holder TEXT;
ALTER TABLE mail_outbox ADD COLUMN lease_holder TEXT;
