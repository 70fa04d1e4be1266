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
CREATE FUNCTION hub_agreements_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a signed agreement is kept as signed';
END;
$$;
CREATE TRIGGER hub_agreements_immutable BEFORE UPDATE OR DELETE ON hub_agreements
    FOR EACH ROW EXECUTE FUNCTION hub_agreements_immutable();
CREATE TRIGGER hub_agreements_no_truncate BEFORE TRUNCATE ON hub_agreements
    FOR EACH STATEMENT EXECUTE FUNCTION hub_agreements_immutable();
