-- Partners get notices by e-mail (a webhook endpoint disabled after 72 h of
-- failures) through the same outbox as enquiry notifications: a mail need
-- not belong to an enquiry any more. SQLite cannot drop NOT NULL in place,
-- so the table is rebuilt with the same rows.
ALTER TABLE partner_clients ADD COLUMN contact_email TEXT;

CREATE TABLE mail_outbox_new (
    id             TEXT PRIMARY KEY,
    enquiry_id     TEXT REFERENCES enquiries (id),
    recipient      TEXT NOT NULL,
    subject        TEXT NOT NULL,
    body           TEXT NOT NULL,
    state          TEXT NOT NULL,
    attempts       INTEGER NOT NULL DEFAULT 0,
    first_due_ms   INTEGER NOT NULL,
    due_ms         INTEGER NOT NULL,
    lease_until_ms INTEGER,
    last_error     TEXT,
    sent_at_ms     INTEGER,
    lease_holder   TEXT
);
INSERT INTO mail_outbox_new (id, enquiry_id, recipient, subject, body, state, attempts, first_due_ms,
                             due_ms, lease_until_ms, last_error, sent_at_ms, lease_holder)
    SELECT id, enquiry_id, recipient, subject, body, state, attempts, first_due_ms,
           due_ms, lease_until_ms, last_error, sent_at_ms, lease_holder FROM mail_outbox;
DROP TABLE mail_outbox;
ALTER TABLE mail_outbox_new RENAME TO mail_outbox;
CREATE INDEX mail_outbox_due ON mail_outbox (due_ms) WHERE state = 'pending';
CREATE INDEX mail_outbox_enquiry ON mail_outbox (enquiry_id);
