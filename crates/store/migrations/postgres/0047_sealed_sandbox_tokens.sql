-- Sandbox access tokens are sealed and carry their own claims
-- (lendhub_domain::sandbox_token): issuing one writes nothing, so their
-- table goes. Tokens issued before this migration no longer verify; a client
-- asks for a new one as it would after expiry. The sandbox_epoch triggers on
-- clients and test clocks stay: instances remember clients by them now.
DROP TABLE sandbox_tokens;
