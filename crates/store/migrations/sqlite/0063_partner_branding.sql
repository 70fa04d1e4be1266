-- A partner's brand on the hosted pages (issue #51 item 2): its display
-- name, accent colour and logo, and the logos themselves by the SHA-256 of
-- their bytes (a changed logo is a new row; old ones stay addressable).
CREATE TABLE partner_branding (
    partner_client_id TEXT PRIMARY KEY,
    updated_at_ms     BIGINT NOT NULL,
    body              TEXT NOT NULL
);
CREATE TABLE partner_logos (
    sha256       TEXT PRIMARY KEY,
    content_type TEXT NOT NULL,
    data         BLOB NOT NULL
);
