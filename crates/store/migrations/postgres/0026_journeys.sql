-- The hosted application journey (issue #15): one per application, created
-- by the first use of its handoff link (the primary key makes the link
-- single-use). The record is the domain's JSON.
CREATE TABLE hub_journeys (
    application_id TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    version        BIGINT NOT NULL,
    body           TEXT NOT NULL
);
