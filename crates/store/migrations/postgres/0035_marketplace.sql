-- The marketplace (issue #17): vendors' app listings under review, their
-- subscriptions (each a webhook endpoint of its own), and the signals they
-- publish into decisioning, read per application when it is decided.
CREATE TABLE hub_marketplace_apps (
    id            TEXT PRIMARY KEY,
    owner         TEXT NOT NULL,
    review        TEXT NOT NULL,
    version       BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    body          TEXT NOT NULL
);
CREATE INDEX hub_marketplace_apps_owner ON hub_marketplace_apps (owner, id);
CREATE INDEX hub_marketplace_apps_review ON hub_marketplace_apps (review, id);
CREATE TABLE hub_marketplace_subscriptions (
    id            TEXT PRIMARY KEY,
    owner         TEXT NOT NULL,
    app_id        TEXT NOT NULL,
    endpoint_id   TEXT NOT NULL UNIQUE,
    created_at_ms BIGINT NOT NULL,
    body          TEXT NOT NULL
);
CREATE INDEX hub_marketplace_subscriptions_app ON hub_marketplace_subscriptions (owner, app_id, id);
CREATE TABLE hub_marketplace_signals (
    id             TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    application_id TEXT NOT NULL,
    created_at_ms  BIGINT NOT NULL,
    body           TEXT NOT NULL
);
CREATE INDEX hub_marketplace_signals_application ON hub_marketplace_signals (owner, application_id, id);
