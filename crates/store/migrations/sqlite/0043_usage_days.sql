-- The dashboard's charts (issue #18): per owner (a partner environment),
-- UTC day on the owner's clock and metric, a count. REST-tier requests are
-- added from each instance's counters every few seconds; webhook delivery
-- attempts in the transaction that records them.
CREATE TABLE usage_days (
    owner  TEXT NOT NULL,
    day    TEXT NOT NULL,
    metric TEXT NOT NULL,
    count  INTEGER NOT NULL,
    PRIMARY KEY (owner, day, metric)
);
