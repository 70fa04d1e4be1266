-- Test clocks move out of sandbox_clients into a table of their own, keyed
-- by owner, so the REST tier's test environments (owners such as
-- `<client_id>/test`) have one too, read by the same queries (issue #14).
-- A missing row is a clock at zero; rows are never deleted (a reset sets 0).
CREATE TABLE test_clocks (
    owner           TEXT PRIMARY KEY,
    clock_offset_ms BIGINT NOT NULL DEFAULT 0 CHECK (clock_offset_ms >= 0)
);
INSERT INTO test_clocks (owner, clock_offset_ms)
    SELECT client_id, clock_offset_ms FROM sandbox_clients WHERE clock_offset_ms > 0;
ALTER TABLE sandbox_clients DROP COLUMN clock_offset_ms;
