-- Model monitoring (issue #48 item 5): a week's decisions are read by when
-- they were made; each week's run is asked for or scheduled like a day's
-- reconciliation and keeps its report; and each drift alert is raised
-- once per week, environment and model, however often the week is run.
CREATE INDEX hub_decisions_decided ON hub_decisions (decided_at_ms, id);
CREATE TABLE hub_model_monitoring_runs (
    week             TEXT PRIMARY KEY,
    due_at_ms        BIGINT NOT NULL,
    requested_at_ms  BIGINT NOT NULL,
    done_at_ms       BIGINT,
    body             TEXT
);
CREATE INDEX hub_model_monitoring_runs_due ON hub_model_monitoring_runs (due_at_ms)
    WHERE done_at_ms IS NULL;
CREATE TABLE hub_model_alerts (
    week        TEXT NOT NULL,
    environment TEXT NOT NULL,
    model       TEXT NOT NULL,
    at_ms       BIGINT NOT NULL,
    PRIMARY KEY (week, environment, model)
);
