-- The underwriting queue and its log (issue #15): referred applications are
-- found across partners by status, and every operator act on a decision is
-- appended to a log the database itself keeps append-only.
CREATE INDEX hub_applications_status ON hub_applications (status, id);
CREATE TABLE underwriting_log (
    seq         BIGSERIAL PRIMARY KEY,
    decision_id TEXT NOT NULL,
    owner       TEXT NOT NULL,
    act         TEXT NOT NULL,
    actor       TEXT NOT NULL,
    note        TEXT NOT NULL,
    at_ms       BIGINT NOT NULL
);
CREATE INDEX underwriting_log_decision ON underwriting_log (decision_id, seq);
CREATE FUNCTION underwriting_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the underwriting log is append-only';
END;
$$;
CREATE TRIGGER underwriting_log_append_only BEFORE UPDATE OR DELETE ON underwriting_log
    FOR EACH ROW EXECUTE FUNCTION underwriting_log_append_only();
