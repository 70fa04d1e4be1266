-- What lendhub sent over the payout rail (issue #47), recorded in the
-- commit that first sends each payment: the rail's webhook names only the
-- payment's end-to-end id, and finds what it ends here. The record is the
-- domain's JSON; a payment is written once and never changed.
CREATE TABLE hub_rail_payments (
    end_to_end_id  TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    kind           TEXT NOT NULL,
    subject_id     TEXT NOT NULL,
    created_at_ms  BIGINT NOT NULL,
    body           TEXT NOT NULL
);
