-- Signed loan agreements (issue #51 item 1): the exact text the applicant
-- signed, its hash, template, signer, time and address, kept as signed. A
-- decision signed again (after a payment the bank refused) keeps both.
CREATE TABLE hub_agreements (
    application_id TEXT NOT NULL,
    signed_at_ms   BIGINT NOT NULL,
    owner          TEXT NOT NULL,
    decision_id    TEXT NOT NULL,
    template       TEXT NOT NULL,
    sha256         TEXT NOT NULL,
    body           TEXT NOT NULL,
    PRIMARY KEY (application_id, signed_at_ms)
);
CREATE TRIGGER hub_agreements_no_update BEFORE UPDATE ON hub_agreements
BEGIN
    SELECT RAISE(ABORT, 'a signed agreement is kept as signed');
END;
CREATE TRIGGER hub_agreements_no_delete BEFORE DELETE ON hub_agreements
BEGIN
    SELECT RAISE(ABORT, 'a signed agreement is kept as signed');
END;
