-- A white-label journey's connections to the applicant's bank (issue #46):
-- asked for by the partner, finished by lendhub's open-banking callback,
-- named by the submission. The record is the domain's JSON; the callback
-- finds it by id alone (its state names only the connection).
CREATE TABLE hub_bank_connections (
    id             TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    application_id TEXT NOT NULL,
    version        BIGINT NOT NULL,
    body           TEXT NOT NULL
);
CREATE INDEX hub_bank_connections_application ON hub_bank_connections (application_id);
