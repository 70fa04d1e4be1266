-- The underwriting queue and its log (issue #15): referred applications are
-- found across partners by status, and every operator act on a decision is
-- appended to a log the database itself keeps append-only.
CREATE INDEX hub_applications_status ON hub_applications (status, id);
CREATE TABLE underwriting_log (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    decision_id TEXT NOT NULL,
    owner       TEXT NOT NULL,
    act         TEXT NOT NULL,
    actor       TEXT NOT NULL,
    note        TEXT NOT NULL,
    at_ms       INTEGER NOT NULL
);
CREATE INDEX underwriting_log_decision ON underwriting_log (decision_id, seq);
CREATE TRIGGER underwriting_log_no_update BEFORE UPDATE ON underwriting_log
BEGIN
    SELECT RAISE(ABORT, 'the underwriting log is append-only');
END;
CREATE TRIGGER underwriting_log_no_delete BEFORE DELETE ON underwriting_log
BEGIN
    SELECT RAISE(ABORT, 'the underwriting log is append-only');
END;
