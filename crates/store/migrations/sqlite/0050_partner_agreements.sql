-- A partner's terms become a history of agreements, each from the first
-- month it rates (issue #44: a change re-rates only the months on or after
-- it, and a price rise needs 60 days' notice). The terms kept until now
-- applied to every month, so they become an agreement from the earliest
-- month a statement can have.
CREATE TABLE hub_partner_agreements (
    client_id      TEXT NOT NULL,
    -- YYYY-MM: the first month it rates (text order is month order)
    effective_from TEXT NOT NULL,
    agreed_at_ms   BIGINT NOT NULL,
    body           TEXT NOT NULL,
    PRIMARY KEY (client_id, effective_from)
);
INSERT INTO hub_partner_agreements (client_id, effective_from, agreed_at_ms, body)
SELECT client_id, '2000-01', updated_at_ms,
       '{"effective_from":"2000-01","terms":' || body || '}'
FROM hub_partner_terms;
DROP TABLE hub_partner_terms;
