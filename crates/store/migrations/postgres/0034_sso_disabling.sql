-- Operators disable people and relying parties (issue #19): a disabled
-- person cannot sign in, a disabled client is unknown to the provider.
ALTER TABLE sso_users ADD COLUMN disabled_at_ms BIGINT;
ALTER TABLE sso_clients ADD COLUMN disabled_at_ms BIGINT;
