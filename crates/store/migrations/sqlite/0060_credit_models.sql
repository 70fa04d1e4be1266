-- The credit model's roles and its shadow scores (issue #48 item 3): which
-- bundled model decides (the champion) and which scores beside it (the
-- challenger), as the lender's operator set them; and each challenger's
-- score of a decision, beside the champion's. Shadow scores are the
-- lender's: no partner-facing query reads them.
CREATE TABLE hub_credit_models (
    role      TEXT PRIMARY KEY,
    set_at_ms BIGINT NOT NULL,
    body      TEXT NOT NULL
);
CREATE TABLE hub_shadow_scores (
    decision_id  TEXT NOT NULL,
    challenger   TEXT NOT NULL,
    owner        TEXT NOT NULL,
    scored_at_ms BIGINT NOT NULL,
    body         TEXT NOT NULL,
    PRIMARY KEY (decision_id, challenger, scored_at_ms)
);
CREATE INDEX hub_shadow_scores_recent ON hub_shadow_scores (scored_at_ms);
