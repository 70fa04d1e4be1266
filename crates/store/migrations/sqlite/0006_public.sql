-- The public ring: enquiries, the notification mail each one queues (an
-- outbox, so a mail server outage never loses one), and CMS pages.
CREATE TABLE enquiries (
    id            TEXT PRIMARY KEY,
    form          TEXT NOT NULL,
    dept          TEXT,
    fields        TEXT NOT NULL,
    status        TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL
);

-- state: pending (to send; retried at due_ms), sent, or failed (given up).
CREATE TABLE mail_outbox (
    id             TEXT PRIMARY KEY,
    enquiry_id     TEXT NOT NULL REFERENCES enquiries (id),
    recipient      TEXT NOT NULL,
    subject        TEXT NOT NULL,
    body           TEXT NOT NULL,
    state          TEXT NOT NULL,
    attempts       INTEGER NOT NULL DEFAULT 0,
    first_due_ms   INTEGER NOT NULL,
    due_ms         INTEGER NOT NULL,
    lease_until_ms INTEGER,
    last_error     TEXT,
    sent_at_ms     INTEGER
);
CREATE INDEX mail_outbox_due ON mail_outbox (due_ms) WHERE state = 'pending';
CREATE INDEX mail_outbox_enquiry ON mail_outbox (enquiry_id);

CREATE TABLE cms_pages (
    key           TEXT PRIMARY KEY,
    title         TEXT NOT NULL,
    body          TEXT NOT NULL,
    published     INTEGER NOT NULL,
    version       INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
