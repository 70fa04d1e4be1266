-- Facts about the deployment that every instance must agree on. The first is
-- a check value derived from the master key: an instance started with a
-- different key refuses to run instead of writing secrets no other instance
-- can open.
CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);
