-- Partners get notices by e-mail (a webhook endpoint disabled after 72 h of
-- failures) through the same outbox as enquiry notifications: a mail need
-- not belong to an enquiry any more.
ALTER TABLE partner_clients ADD COLUMN contact_email TEXT;
ALTER TABLE mail_outbox ALTER COLUMN enquiry_id DROP NOT NULL;
