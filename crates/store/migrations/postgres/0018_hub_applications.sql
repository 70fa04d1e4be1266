-- The REST tier's applications (issue #15). The record is the domain's
-- JSON; the columns beside it are what lists filter and sweeps find.
CREATE TABLE hub_applications (
    id              TEXT PRIMARY KEY,
    owner           TEXT NOT NULL,
    status          TEXT NOT NULL,
    reference       TEXT,
    version         BIGINT NOT NULL,
    created_at_ms   BIGINT NOT NULL,
    -- Set while the application is open for the applicant: the expiry
    -- sweep's index holds open applications only.
    open_until_ms   BIGINT,
    body            TEXT NOT NULL
);
-- Ids sort by creation time: the newest-first list walks this index.
CREATE INDEX hub_applications_owner ON hub_applications (owner, id);
CREATE INDEX hub_applications_owner_status ON hub_applications (owner, status, id);
CREATE INDEX hub_applications_owner_reference ON hub_applications (owner, reference, id)
    WHERE reference IS NOT NULL;
CREATE INDEX hub_applications_open ON hub_applications (open_until_ms)
    WHERE open_until_ms IS NOT NULL;
