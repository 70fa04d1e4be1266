-- How many webhook endpoints each owner has, kept with every insert and
-- delete: the per-owner limit is enforced by this row (reserved in the same
-- transaction as the insert), not by a count taken before it.
CREATE TABLE webhook_endpoint_counts (
    owner TEXT PRIMARY KEY,
    n     BIGINT NOT NULL
);
INSERT INTO webhook_endpoint_counts (owner, n)
    SELECT owner, count(*) FROM webhook_endpoints GROUP BY owner;

-- A rotated secret keeps signing deliveries, beside the new one, until the
-- overlap ends.
ALTER TABLE webhook_endpoints ADD COLUMN previous_sealed_secret BYTEA;
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_expires_at_ms BIGINT;
