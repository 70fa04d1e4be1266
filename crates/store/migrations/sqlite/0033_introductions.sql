-- Applications a partner's sub-account introduced (issue #17). The stage
-- is read from the application, so only the link is stored; one
-- introduction per application.
CREATE TABLE hub_introductions (
    id                TEXT PRIMARY KEY,
    owner             TEXT NOT NULL,
    application_id    TEXT NOT NULL UNIQUE,
    sub_account_id    TEXT NOT NULL,
    introduced_at_ms  INTEGER NOT NULL,
    body              TEXT NOT NULL
);
CREATE INDEX hub_introductions_owner ON hub_introductions (owner, id);
CREATE INDEX hub_introductions_sub_account ON hub_introductions (owner, sub_account_id, id);
