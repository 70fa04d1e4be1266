//! SQL that both backends run as written, kept once. Placeholders are
//! PostgreSQL's `$n`; SQLite reads the same text through
//! [`crate::sqlite::dialect`], which spells them `?n`. Statements that differ
//! between the dialects (locking, arrays, upserts that return) stay with
//! their backend.

use std::sync::LazyLock;

/// The columns of a person, in the order both backends read them.
pub const USER_COLUMNS: &str = "user_id, email, password_hash, given_name, family_name, email_verified, \
     company_number, company_name, company_role, created_at_ms, updated_at_ms";

/// What `/userinfo` reads for a token: the token, its family's revocation and
/// the person (`USER_COLUMNS` of `u` from column 5), in one statement.
pub const ACCESS: &str = "SELECT a.verifier_hash, a.scope, a.expires_at_ms, f.client_id, \
     f.revoked_at_ms IS NOT NULL, u.user_id, u.email, u.password_hash, u.given_name, \
     u.family_name, u.email_verified, u.company_number, u.company_name, u.company_role, \
     u.created_at_ms, u.updated_at_ms \
     FROM sso_access_tokens a \
     JOIN sso_families f ON f.family_id = a.family_id \
     JOIN sso_users u ON u.user_id = f.user_id \
     WHERE a.selector = $1";

/// Creates or replaces a CMS page; its version starts at 1 and moves with
/// every put.
pub const PUT_CMS_PAGE: &str =
    "INSERT INTO cms_pages (key, title, body, published, version, updated_at_ms)
     VALUES ($1, $2, $3, $4, 1, $5)
     ON CONFLICT (key) DO UPDATE SET title = excluded.title, body = excluded.body,
         published = excluded.published, version = cms_pages.version + 1,
         updated_at_ms = excluded.updated_at_ms
     RETURNING version";

/// Retention, by what has expired before `$1`. Clock offsets are never
/// negative, so an idempotency record past the service clock's cut-off has
/// expired for every owner (a range of the created index); owners whose
/// clocks run ahead expire theirs sooner, by a statement of each backend's.
pub const PRUNE_IDEMPOTENCY: &str = "DELETE FROM idempotency_keys WHERE created_at_ms < $1";
pub const PRUNE_REVOCATIONS: &str = "DELETE FROM revoked_tokens WHERE expires_at_ms < $1";
pub const PRUNE_EVENTS: &str = "DELETE FROM events WHERE created_at_ms < $1";
/// A sandbox client's events are on its clock, ahead of the service's.
pub const PRUNE_EVENTS_AHEAD: &str =
    "DELETE FROM events WHERE owner IN (SELECT owner FROM test_clocks WHERE clock_offset_ms > 0)
     AND created_at_ms - (SELECT clock_offset_ms FROM test_clocks WHERE owner = events.owner) < $1";
/// The journeys of applications that ended without a loan and were created
/// before the cut-off on their owner's clock (`Retention::journeys_before_ms`).
pub const PRUNE_JOURNEYS: &str = "DELETE FROM hub_journeys WHERE application_id IN (
       SELECT a.id FROM hub_journeys j
       JOIN hub_applications a ON a.id = j.application_id
       LEFT JOIN test_clocks c ON c.owner = a.owner
       WHERE a.status IN ('declined', 'withdrawn', 'expired')
         AND a.created_at_ms - COALESCE(c.clock_offset_ms, 0) < $1)";
/// The bank connections of the same applications (`PRUNE_JOURNEYS`): the
/// account's figures read at the bank go with the journey's.
pub const PRUNE_BANK_CONNECTIONS: &str =
    "DELETE FROM hub_bank_connections WHERE application_id IN (
       SELECT a.id FROM hub_applications a
       LEFT JOIN test_clocks c ON c.owner = a.owner
       WHERE a.status IN ('declined', 'withdrawn', 'expired')
         AND a.created_at_ms - COALESCE(c.clock_offset_ms, 0) < $1)";
/// Finished deliveries, by the (state, due_ms) index; a pending one is
/// never older than its 72-hour schedule.
pub const PRUNE_DELIVERIES: &str =
    "DELETE FROM deliveries WHERE state IN ('delivered', 'failed') AND due_ms < $1";

/// One page of an owner's events, in the shape of the request: `$1` owner,
/// `$2` the cursor's sequence number, `$3` the type, `$4` how many to fetch.
/// One statement per shape, so each is planned for the index it can use (a
/// plan fixed once cannot skip an `$2 IS NULL OR …` branch); an absent
/// parameter is still bound, and tested for NULL.
pub fn events_page(shape: EventsPage) -> &'static str {
    static SHAPES: LazyLock<Vec<String>> = LazyLock::new(|| {
        (0..EventsPage::COUNT)
            .map(|i| events_page_shape(EventsPage::from_index(i)))
            .collect()
    });
    &SHAPES[shape.index()]
}

/// What an events page asks for, which decides its statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventsPage {
    /// Toward newer events (`ending_before`).
    pub newer: bool,
    /// From an anchor event.
    pub cursor: bool,
    /// Of one type.
    pub typed: bool,
    /// Created after a moment.
    pub after: bool,
}

impl EventsPage {
    pub const COUNT: usize = 16;

    pub fn index(self) -> usize {
        usize::from(self.newer) << 3
            | usize::from(self.cursor) << 2
            | usize::from(self.typed) << 1
            | usize::from(self.after)
    }

    pub fn from_index(i: usize) -> Self {
        Self {
            newer: i & 8 != 0,
            cursor: i & 4 != 0,
            typed: i & 2 != 0,
            after: i & 1 != 0,
        }
    }
}

/// Binds: `$1` owner, `$2` anchor seq, `$3` type, `$4` rows, `$5` created
/// after (ms). `created_after` becomes a floor on `seq` — the last event
/// created at or before the moment, one probe of `events_owner_created` —
/// so the page walks `seq` from there instead of filtering every older
/// event; an owner's events are stored in time order (the test clock only
/// moves forward, a reset removes them all).
fn events_page_shape(shape: EventsPage) -> String {
    let (cmp, order) = if shape.newer {
        (">", "ASC")
    } else {
        ("<", "DESC")
    };
    let cursor = if shape.cursor {
        format!("AND seq {cmp} $2")
    } else {
        "AND CAST($2 AS BIGINT) IS NULL".to_owned()
    };
    let kind = if shape.typed {
        "AND type = $3"
    } else {
        "AND CAST($3 AS TEXT) IS NULL"
    };
    let after = if shape.after {
        "AND created_at_ms > $5 AND seq > COALESCE((SELECT f.seq FROM events f
             WHERE f.owner = $1 AND f.created_at_ms <= $5
             ORDER BY f.created_at_ms DESC, f.seq DESC LIMIT 1), 0)"
    } else {
        "AND CAST($5 AS BIGINT) IS NULL"
    };
    format!(
        "SELECT id, owner, type, created_at_ms, body FROM events
         WHERE owner = $1 {cursor} {kind} {after}
         ORDER BY seq {order} LIMIT $4"
    )
}

/// The rows of `$table` due on their owners' clocks (`due_at_ms`, moved by
/// each owner's test clock), soonest first, as (body, clock offset): the
/// bound on `due_at_ms` (offsets are never negative) lets the index narrow
/// the scan, and the order is the index's, so a backlog is read a page at a
/// time rather than sorted whole. Binds `$1` the service clock's now, `$2`
/// the page size.
macro_rules! due_on_owners_clock {
    ($table:literal) => {
        concat!(
            "SELECT r.body, coalesce(c.clock_offset_ms, 0) FROM ",
            $table,
            " r
         LEFT JOIN test_clocks c ON c.owner = r.owner
         WHERE r.due_at_ms IS NOT NULL
           AND r.due_at_ms - coalesce(c.clock_offset_ms, 0) <= $1
           AND r.due_at_ms <= $1 + (SELECT coalesce(max(clock_offset_ms), 0) FROM test_clocks)
         ORDER BY r.due_at_ms
         LIMIT $2"
        )
    };
}

/// The lending context's statements both backends run as written (except
/// that SQLite reads and inserts applications by id through `sqlite::row_keys`).
pub mod lending {
    pub const APPLICATION: &str = "SELECT body FROM hub_applications WHERE id = $1 AND owner = $2";
    pub const INSERT_APPLICATION: &str = "INSERT INTO hub_applications
         (id, owner, status, reference, version, created_at_ms, due_at_ms, body, company_number, search_text)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
    /// The owner's newest declined application for a company: its
    /// cooling-off runs from the decline.
    pub const LATEST_DECLINED: &str = "SELECT body FROM hub_applications
         WHERE owner = $1 AND company_number = $2 AND status = 'declined'
         ORDER BY id DESC LIMIT 1";
    /// Conditional on the version the change was computed from (`$5 - 1`;
    /// written `version + 1 = $5` so `$5` takes the column's type).
    pub const UPDATE_APPLICATION: &str = "UPDATE hub_applications
         SET status = $3, reference = $4, version = $5, due_at_ms = $6, body = $7, search_text = $8
         WHERE id = $1 AND owner = $2 AND version + 1 = $5";
    pub const VERIFICATION: &str = "SELECT body FROM identity_checks WHERE id = $1 AND owner = $2";
    pub const INSERT_VERIFICATION: &str =
        "INSERT INTO identity_checks (id, owner, application_id, created_at_ms, body)
         VALUES ($1, $2, $3, $4, $5)";
    pub const DECISION: &str = "SELECT body FROM hub_decisions WHERE id = $1 AND owner = $2";
    pub const DECISION_EXISTS: &str = "SELECT 1 FROM hub_decisions WHERE id = $1 AND owner = $2";
    pub const INSERT_DECISION: &str =
        "INSERT INTO hub_decisions (id, owner, application_id, outcome, decided_at_ms, body)
         VALUES ($1, $2, $3, $4, $5, $6)";
    /// The application's UNIQUE `application_id` makes a second account for
    /// one loan impossible.
    pub const INSERT_ACCOUNT: &str =
        "INSERT INTO hub_accounts (id, owner, application_id, status, opened_at_ms, body, due_at_ms, borrower, sub_account_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
    /// An account of a borrowing company (`Account::borrower`), whoever
    /// introduced it.
    pub const COMPANY_ACCOUNT: &str =
        "SELECT body FROM hub_accounts WHERE id = $1 AND borrower = $2";
    pub const COMPANY_ACCOUNT_EXISTS: &str =
        "SELECT 1 FROM hub_accounts WHERE id = $1 AND borrower = $2";
    /// Conditional on the status the change was computed from (`$5`).
    /// Accounts due for a look on their owner's clock, as `DUE_APPLICATIONS`.
    pub const DUE_ACCOUNTS: &str = due_on_owners_clock!("hub_accounts");
    pub const ACCOUNT: &str = "SELECT body FROM hub_accounts WHERE id = $1 AND owner = $2";
    /// The operator's view: any partner's account.
    pub const ACCOUNT_ANY_OWNER: &str = "SELECT body FROM hub_accounts WHERE id = $1";
    /// Only beside its application's versioned update, which orders
    /// concurrent changes to either.
    pub const UPDATE_DECISION: &str = "UPDATE hub_decisions
         SET outcome = $3, decided_at_ms = $4, body = $5 WHERE id = $1 AND owner = $2";
    pub const APPLICATION_EXISTS: &str =
        "SELECT 1 FROM hub_applications WHERE id = $1 AND owner = $2";
    /// The operator's view: any partner's decision.
    pub const DECISION_ANY_OWNER: &str = "SELECT body FROM hub_decisions WHERE id = $1";
    /// The underwriting queue, oldest referral first.
    pub const IN_REVIEW: &str = "SELECT body FROM hub_applications
         WHERE status = 'in_review' ORDER BY id LIMIT $1";
    pub const INSERT_PAYMENT: &str = "INSERT INTO hub_payments
         (id, owner, account_id, status, version, due_at_ms, body, schedule_id, instalment)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
    pub const INSERT_SCHEDULE: &str = "INSERT INTO hub_schedules
         (id, owner, account_id, status, version, due_at_ms, body) VALUES ($1, $2, $3, $4, $5, $6, $7)";
    /// Conditional on the version the change was computed from (`$4 - 1`):
    /// of several instances initiating one instalment, one commits.
    pub const UPDATE_SCHEDULE: &str = "UPDATE hub_schedules
         SET status = $3, version = $4, due_at_ms = $5, body = $6
         WHERE id = $1 AND owner = $2 AND version + 1 = $4";
    pub const SCHEDULE: &str = "SELECT body FROM hub_schedules WHERE id = $1 AND owner = $2";
    pub const ACCOUNT_SCHEDULES: &str = "SELECT body FROM hub_schedules
         WHERE owner = $1 AND account_id = $2 ORDER BY id DESC";
    /// Schedules with an instalment due on their owner's clock, as
    /// `DUE_APPLICATIONS`.
    pub const DUE_SCHEDULES: &str = due_on_owners_clock!("hub_schedules");
    pub const INSERT_MANDATE: &str = "INSERT INTO hub_mandates
         (id, owner, account_id, status, version, body) VALUES ($1, $2, $3, $4, $5, $6)";
    /// Conditional on the version the change was computed from (`$4 - 1`).
    pub const UPDATE_MANDATE: &str = "UPDATE hub_mandates SET status = $3, version = $4, body = $5
         WHERE id = $1 AND owner = $2 AND version + 1 = $4";
    pub const MANDATE: &str = "SELECT body FROM hub_mandates WHERE id = $1 AND owner = $2";
    /// The pay page's mandate page: its link names only the mandate.
    pub const MANDATE_ANY_OWNER: &str = "SELECT body FROM hub_mandates WHERE id = $1";
    /// Conditional on the version the change was computed from (`$4 - 1`).
    pub const UPDATE_PAYMENT: &str = "UPDATE hub_payments
         SET status = $3, version = $4, due_at_ms = $5, body = $6
         WHERE id = $1 AND owner = $2 AND version + 1 = $4";
    pub const PAYMENT: &str = "SELECT body FROM hub_payments WHERE id = $1 AND owner = $2";
    pub const PAYMENT_EXISTS: &str = "SELECT 1 FROM hub_payments WHERE id = $1 AND owner = $2";
    /// The hosted pay page's: its link names only the payment.
    pub const PAYMENT_ANY_OWNER: &str = "SELECT body FROM hub_payments WHERE id = $1";
    /// Payments due on their owner's clock, as `DUE_APPLICATIONS`.
    pub const DUE_PAYMENTS: &str = due_on_owners_clock!("hub_payments");
    pub const ACCOUNT_EXISTS: &str = "SELECT 1 FROM hub_accounts WHERE id = $1 AND owner = $2";
    pub const APPLICATION_VERSION: &str =
        "SELECT version FROM hub_applications WHERE id = $1 AND owner = $2";
    pub const APPLICATION_ANY_OWNER: &str = "SELECT body FROM hub_applications WHERE id = $1";
    pub const JOURNEY: &str = "SELECT body FROM hub_journeys WHERE application_id = $1";
    /// Touches no row if the application already has a journey: the handoff
    /// link was used.
    pub const START_JOURNEY: &str =
        "INSERT INTO hub_journeys (application_id, owner, version, body)
         VALUES ($1, $2, $3, $4) ON CONFLICT (application_id) DO NOTHING";
    /// Conditional on the version the change was computed from (`$3 - 1`).
    pub const UPDATE_JOURNEY: &str = "UPDATE hub_journeys SET version = $3, body = $4
         WHERE application_id = $1 AND owner = $2 AND version + 1 = $3";
    /// Any partner's: the open-banking callback's state names only the
    /// connection.
    pub const BANK_CONNECTION: &str = "SELECT body FROM hub_bank_connections WHERE id = $1";
    pub const RAIL_PAYMENT: &str = "SELECT body FROM hub_rail_payments WHERE end_to_end_id = $1";
    /// The credit model's roles (issue #48): at most one row per role.
    pub const MODEL_ROLES: &str = "SELECT role, body FROM hub_credit_models";
    pub const SET_MODEL_ROLE: &str = "INSERT INTO hub_credit_models (role, set_at_ms, body)
         VALUES ($1, $2, $3) ON CONFLICT (role)
         DO UPDATE SET set_at_ms = excluded.set_at_ms, body = excluded.body";
    pub const CLEAR_MODEL_ROLE: &str = "DELETE FROM hub_credit_models WHERE role = $1";
    pub const INSERT_SHADOW_SCORE: &str = "INSERT INTO hub_shadow_scores
         (decision_id, challenger, owner, scored_at_ms, body) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING";
    /// The newest shadow scores, for the operator's comparison.
    pub const SHADOW_SCORES: &str = "SELECT body FROM hub_shadow_scores
         ORDER BY scored_at_ms DESC, decision_id DESC LIMIT $1";
    /// A page of the decisions made in `[$1, $2)`, after the one made at
    /// `$3` with id `$4`: model monitoring's week.
    pub const DECIDED_BETWEEN: &str = "SELECT decided_at_ms, body FROM hub_decisions
         WHERE decided_at_ms >= $1 AND decided_at_ms < $2
           AND (decided_at_ms > $3 OR (decided_at_ms = $3 AND id > $4))
         ORDER BY decided_at_ms, id LIMIT $5";
    /// Asks for a week's monitoring now, again if it ran before.
    pub const REQUEST_MONITORING: &str = "INSERT INTO hub_model_monitoring_runs
             (week, due_at_ms, requested_at_ms, done_at_ms, body)
         VALUES ($1, $2, $2, NULL, NULL)
         ON CONFLICT (week) DO UPDATE SET due_at_ms = excluded.due_at_ms,
             requested_at_ms = excluded.requested_at_ms, done_at_ms = NULL";
    /// Schedules a week's monitoring, unless scheduled or asked for already.
    pub const SCHEDULE_MONITORING: &str = "INSERT INTO hub_model_monitoring_runs
             (week, due_at_ms, requested_at_ms, done_at_ms, body)
         VALUES ($1, $2, $2, NULL, NULL) ON CONFLICT (week) DO NOTHING";
    /// A run's report, unless it was asked for again after `$3`.
    pub const MONITORING_DONE: &str = "UPDATE hub_model_monitoring_runs
         SET done_at_ms = $2, body = $4 WHERE week = $1 AND requested_at_ms <= $3";
    pub const DUE_MONITORING: &str = "SELECT week, requested_at_ms FROM hub_model_monitoring_runs
         WHERE done_at_ms IS NULL AND due_at_ms <= $1 ORDER BY due_at_ms LIMIT $2";
    pub const MONITORING_RUN: &str = "SELECT requested_at_ms, done_at_ms, body
         FROM hub_model_monitoring_runs WHERE week = $1";
    /// The newest weeks' reports.
    pub const MONITORING_REPORTS: &str = "SELECT body FROM hub_model_monitoring_runs
         WHERE body IS NOT NULL ORDER BY week DESC LIMIT $1";
    /// Touches no row if the week's alert for the model was raised.
    pub const TAKE_DRIFT_ALERT: &str =
        "INSERT INTO hub_model_alerts (week, environment, model, at_ms)
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING";
    pub const FREE_DRIFT_ALERT: &str =
        "DELETE FROM hub_model_alerts WHERE week = $1 AND environment = $2 AND model = $3";
    pub const INSERT_AGREEMENT: &str = "INSERT INTO hub_agreements
         (application_id, signed_at_ms, owner, decision_id, template, sha256, body)
         VALUES ($1, $2, $3, $4, $5, $6, $7)";
    /// The newest agreement signed for an application.
    pub const AGREEMENT: &str = "SELECT body FROM hub_agreements
         WHERE application_id = $1 AND owner = $2 ORDER BY signed_at_ms DESC LIMIT 1";
    pub const INSERT_RAIL_PAYMENT: &str =
        "INSERT INTO hub_rail_payments (end_to_end_id, owner, kind, subject_id, created_at_ms, body)
         VALUES ($1, $2, $3, $4, $5, $6)";
    pub const INSERT_BANK_CONNECTION: &str =
        "INSERT INTO hub_bank_connections (id, owner, application_id, version, body)
         VALUES ($1, $2, $3, $4, $5)";
    /// Conditional on the version the change was computed from (`$3 - 1`).
    pub const UPDATE_BANK_CONNECTION: &str =
        "UPDATE hub_bank_connections SET version = $3, body = $4
         WHERE id = $1 AND owner = $2 AND version + 1 = $3";
    pub const INSERT_ACT: &str = "INSERT INTO underwriting_log
         (decision_id, owner, act, actor, note, at_ms) VALUES ($1, $2, $3, $4, $5, $6)";
    pub const ACTS: &str = "SELECT decision_id, owner, act, actor, note, at_ms
         FROM underwriting_log ORDER BY seq";
    pub const ACTS_OF_DECISION: &str = "SELECT decision_id, owner, act, actor, note, at_ms
         FROM underwriting_log WHERE decision_id = $1 ORDER BY seq";
    /// Applications due on their owner's clock (`Application::due_at`:
    /// expiry, or a test referral's review).
    pub const DUE_APPLICATIONS: &str = due_on_owners_clock!("hub_applications");
}

/// The commercial context's statements both backends run as written
/// (issue #17): sub-accounts and introductions.
pub mod ledger {
    /// Before the transfer's row, which the database refuses unless they
    /// balance.
    pub const INSERT_POSTING: &str =
        "INSERT INTO hub_ledger_postings (transfer_id, seq, account, side, amount_pence)
         VALUES ($1, $2, $3, $4, $5)";
    pub const INSERT_TRANSFER: &str =
        "INSERT INTO hub_ledger_transfers (id, movement, phase, pending_id, at_ms, body, reference, loan)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
    /// Moves an account's running totals by the deltas given.
    pub const MOVE_TOTALS: &str = "INSERT INTO hub_ledger_balances
             (account, posted_debits, posted_credits, pending_debits, pending_credits)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (account) DO UPDATE SET
             posted_debits = hub_ledger_balances.posted_debits + excluded.posted_debits,
             posted_credits = hub_ledger_balances.posted_credits + excluded.posted_credits,
             pending_debits = hub_ledger_balances.pending_debits + excluded.pending_debits,
             pending_credits = hub_ledger_balances.pending_credits + excluded.pending_credits";
    /// What a post or void gives back of its pending transfer's hold.
    pub const GIVE_BACK_PENDING: &str = "UPDATE hub_ledger_balances
         SET pending_debits = pending_debits - $2, pending_credits = pending_credits - $3
         WHERE account = $1";
    pub const TOTALS: &str =
        "SELECT account, posted_debits, posted_credits, pending_debits, pending_credits
         FROM hub_ledger_balances ORDER BY account";
    /// (PostgreSQL sums BIGINTs as NUMERIC: cast back.)
    pub const POSTED_BEFORE: &str = "SELECT p.account,
             CAST(sum(CASE p.side WHEN 'debit' THEN p.amount_pence ELSE 0 END) AS BIGINT),
             CAST(sum(CASE p.side WHEN 'credit' THEN p.amount_pence ELSE 0 END) AS BIGINT)
         FROM hub_ledger_postings p JOIN hub_ledger_transfers t ON t.id = p.transfer_id
         WHERE t.phase IN ('single', 'post') AND t.at_ms < $1
         GROUP BY p.account ORDER BY p.account";
    pub const TRANSFER: &str = "SELECT body FROM hub_ledger_transfers WHERE id = $1";
    /// The transfers of a loan (with a posting to one of its accounts), in
    /// the order they were made.
    pub const LOAN_TRANSFERS: &str = "SELECT body FROM hub_ledger_transfers
         WHERE loan = $1 ORDER BY at_ms, id";
    /// A page of a loan's posted transfers, newest first: the first page.
    pub const LOAN_POSTED_NEWEST: &str = "SELECT body FROM hub_ledger_transfers
         WHERE loan = $1 AND phase IN ('single', 'post')
         ORDER BY at_ms DESC, id DESC LIMIT $2";
    /// Older than the transfer made at `$2` with id `$3`, newest first.
    pub const LOAN_POSTED_OLDER: &str = "SELECT body FROM hub_ledger_transfers
         WHERE loan = $1 AND phase IN ('single', 'post')
           AND at_ms <= $2 AND (at_ms < $2 OR id < $3)
         ORDER BY at_ms DESC, id DESC LIMIT $4";
    /// Newer than the transfer made at `$2` with id `$3`, oldest first.
    pub const LOAN_POSTED_NEWER: &str = "SELECT body FROM hub_ledger_transfers
         WHERE loan = $1 AND phase IN ('single', 'post')
           AND at_ms >= $2 AND (at_ms > $2 OR id > $3)
         ORDER BY at_ms, id LIMIT $4";
    /// A loan's posted transfers made in one millisecond: where a
    /// statement's cursor (an entry id, which carries the millisecond)
    /// points.
    pub const LOAN_POSTED_AT: &str = "SELECT body FROM hub_ledger_transfers
         WHERE loan = $1 AND at_ms = $2 AND phase IN ('single', 'post')";
    /// The transfers known at the bank by end-to-end id `$1`.
    pub const BY_REFERENCE: &str =
        "SELECT body FROM hub_ledger_transfers WHERE reference = $1 ORDER BY at_ms, id";
    /// A reconciliation item, once: a day reconciled again finds it again.
    pub const INSERT_ITEM: &str =
        "INSERT INTO hub_reconciliation_items (id, day, resolution, found_at_ms, body)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING";
    pub const ITEMS_OF_DAY: &str =
        "SELECT body FROM hub_reconciliation_items WHERE day = $1 ORDER BY id";
    /// The newest items first, open ones before the rest: each part read
    /// newest first through its index, so the page never sorts the table.
    pub const RECENT_ITEMS: &str = "SELECT body FROM (
           SELECT body, 0 AS k, day, id FROM (SELECT body, day, id FROM hub_reconciliation_items
             WHERE resolution = 'open' ORDER BY day DESC, id DESC LIMIT $1) o
           UNION ALL
           SELECT body, 1 AS k, day, id FROM (SELECT body, day, id FROM hub_reconciliation_items
             WHERE resolution <> 'open' ORDER BY day DESC, id DESC LIMIT $1) r
         ) t ORDER BY k, day DESC, id DESC LIMIT $1";
    /// Asks for a day's run now, again if it ran before.
    pub const REQUEST_RUN: &str = "INSERT INTO hub_reconciliation_runs
             (day, due_at_ms, requested_at_ms, done_at_ms, body)
         VALUES ($1, $2, $2, NULL, NULL)
         ON CONFLICT (day) DO UPDATE SET due_at_ms = excluded.due_at_ms,
             requested_at_ms = excluded.requested_at_ms, done_at_ms = NULL";
    /// Schedules a day's run, unless it was scheduled or asked for already.
    pub const SCHEDULE_RUN: &str = "INSERT INTO hub_reconciliation_runs
             (day, due_at_ms, requested_at_ms, done_at_ms, body)
         VALUES ($1, $2, $2, NULL, NULL) ON CONFLICT (day) DO NOTHING";
    /// A run's report, unless it was asked for again after `$3` (the
    /// request the run answered).
    pub const RUN_DONE: &str = "UPDATE hub_reconciliation_runs SET done_at_ms = $2, body = $4
         WHERE day = $1 AND requested_at_ms <= $3";
    pub const DUE_RUNS: &str = "SELECT day, requested_at_ms FROM hub_reconciliation_runs
         WHERE done_at_ms IS NULL AND due_at_ms <= $1 ORDER BY due_at_ms LIMIT $2";
    pub const RUN: &str = "SELECT requested_at_ms, done_at_ms, body
         FROM hub_reconciliation_runs WHERE day = $1";
    /// The transfers made in `[$1, $2)` with a posting to account `$3`.
    pub const TRANSFERS_OF_ACCOUNT_BETWEEN: &str = "SELECT t.body FROM hub_ledger_transfers t
         WHERE t.at_ms >= $1 AND t.at_ms < $2
           AND t.id IN (SELECT p.transfer_id FROM hub_ledger_postings p WHERE p.account = $3)
         ORDER BY t.at_ms, t.id";
}

pub mod commercial {
    pub const INSERT_SUB_ACCOUNT: &str =
        "INSERT INTO hub_sub_accounts (id, owner, created_at_ms, body) VALUES ($1, $2, $3, $4)";
    pub const SUB_ACCOUNT: &str = "SELECT body FROM hub_sub_accounts WHERE id = $1 AND owner = $2";
    pub const SUB_ACCOUNT_EXISTS: &str =
        "SELECT 1 FROM hub_sub_accounts WHERE id = $1 AND owner = $2";
    pub const INSERT_INTRODUCTION: &str = "INSERT INTO hub_introductions
         (id, owner, application_id, sub_account_id, introduced_at_ms, body) VALUES ($1, $2, $3, $4, $5, $6)";
    pub const INTRODUCTION_EXISTS: &str =
        "SELECT 1 FROM hub_introductions WHERE id = $1 AND owner = $2";
    pub const INSERT_APP: &str = "INSERT INTO hub_marketplace_apps
         (id, owner, review, version, created_at_ms, body) VALUES ($1, $2, $3, $4, $5, $6)";
    pub const APP: &str = "SELECT body FROM hub_marketplace_apps WHERE id = $1 AND owner = $2";
    pub const APP_ANY_OWNER: &str = "SELECT body FROM hub_marketplace_apps WHERE id = $1";
    /// The operator's queue: oldest first.
    pub const APPS_IN_REVIEW: &str =
        "SELECT body FROM hub_marketplace_apps WHERE review = $1 ORDER BY id LIMIT $2";
    /// A review, over the version read: 0 rows when another came first.
    pub const REVIEW_APP: &str =
        "UPDATE hub_marketplace_apps SET review = $2, version = $3, body = $4
         WHERE id = $1 AND version = $5";
    pub const INSERT_SUBSCRIPTION: &str = "INSERT INTO hub_marketplace_subscriptions
         (id, owner, app_id, endpoint_id, created_at_ms, body) VALUES ($1, $2, $3, $4, $5, $6)";
    pub const INSERT_SIGNAL: &str = "INSERT INTO hub_marketplace_signals
         (id, owner, application_id, created_at_ms, body) VALUES ($1, $2, $3, $4, $5)";
    /// A partner's agreements, oldest first (by the month each rates from).
    pub const PARTNER_AGREEMENTS: &str = "SELECT body FROM hub_partner_agreements
         WHERE client_id = $1 ORDER BY effective_from";
    /// An agreement from a month replaces one made earlier from that month.
    pub const AGREE_TERMS: &str =
        "INSERT INTO hub_partner_agreements (client_id, effective_from, agreed_at_ms, body)
         VALUES ($1, $2, $3, $4) ON CONFLICT (client_id, effective_from)
         DO UPDATE SET agreed_at_ms = excluded.agreed_at_ms, body = excluded.body";
    /// Every account an owner ever opened: a close's history.
    pub const OWNER_ACCOUNTS: &str = "SELECT body FROM hub_accounts WHERE owner = $1 ORDER BY id";
    /// Every sub-account of an owner: their shares, for the payouts.
    pub const OWNER_SUB_ACCOUNTS: &str =
        "SELECT body FROM hub_sub_accounts WHERE owner = $1 ORDER BY id";
    /// Owners that opened an account within a period (on their clock).
    pub const BILLING_OWNERS: &str = "SELECT DISTINCT owner FROM hub_accounts
         WHERE opened_at_ms >= $1 AND opened_at_ms < $2";
    /// A statement is rewritten only while it is a draft: a finalized one
    /// never changes.
    pub const PUT_STATEMENT: &str = "INSERT INTO hub_statements (id, owner, period, status, body)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (owner, period)
         DO UPDATE SET status = excluded.status, body = excluded.body
         WHERE hub_statements.status = 'draft'";
    pub const STATEMENT: &str = "SELECT body FROM hub_statements WHERE id = $1 AND owner = $2";
    pub const STATEMENT_FOR: &str =
        "SELECT body FROM hub_statements WHERE owner = $1 AND period = $2";
    pub const STATEMENT_EXISTS: &str = "SELECT 1 FROM hub_statements WHERE id = $1 AND owner = $2";
    /// A close writes a month's payouts until the rail first moves one.
    pub const PUT_PAYOUT: &str = "INSERT INTO hub_payouts
         (id, owner, sub_account_id, period, status, due_at_ms, body)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (owner, sub_account_id, period)
         DO UPDATE SET status = excluded.status, due_at_ms = excluded.due_at_ms,
                       body = excluded.body
         WHERE hub_payouts.status <> 'paid' AND hub_payouts.version = 0";
    /// A payout's move on the rail, over the version read.
    pub const MOVE_PAYOUT: &str = "UPDATE hub_payouts
         SET status = $3, due_at_ms = $4, version = $5, body = $6
         WHERE id = $1 AND version = $2";
    pub const PAYOUT: &str = "SELECT body FROM hub_payouts WHERE id = $1 AND owner = $2";
    /// A payee's failed payouts (a sub-account's, or under '' the
    /// partner's own): what a new payout account issues again.
    pub const FAILED_PAYOUTS: &str = "SELECT body FROM hub_payouts
         WHERE owner = $1 AND sub_account_id = $2 AND status = 'failed' ORDER BY period";
    pub const PARTNER_PAYOUT_ACCOUNT: &str =
        "SELECT body FROM hub_partner_payout_accounts WHERE owner = $1";
    pub const SET_PARTNER_PAYOUT_ACCOUNT: &str =
        "INSERT INTO hub_partner_payout_accounts (owner, updated_at_ms, body) VALUES ($1, $2, $3)
         ON CONFLICT (owner) DO UPDATE SET updated_at_ms = excluded.updated_at_ms,
                                           body = excluded.body";
    pub const UPDATE_SUB_ACCOUNT: &str =
        "UPDATE hub_sub_accounts SET body = $3 WHERE id = $1 AND owner = $2";
    pub const PAYOUT_EXISTS: &str = "SELECT 1 FROM hub_payouts WHERE id = $1 AND owner = $2";
    /// A month's payouts of an owner: the close voids those a new draft no
    /// longer has.
    pub const PERIOD_PAYOUTS: &str =
        "SELECT body FROM hub_payouts WHERE owner = $1 AND period = $2";
    pub const INSERT_ADJUSTMENT: &str = "INSERT INTO hub_statement_adjustments (id, owner, applies_to, body) VALUES ($1, $2, $3, $4)";
    /// The corrections a month's statement settles, in the order made.
    pub const ADJUSTMENTS: &str = "SELECT body FROM hub_statement_adjustments
         WHERE owner = $1 AND applies_to = $2 ORDER BY id";
    pub const WAITING_CLOSE: &str =
        "SELECT body FROM hub_billing_due WHERE owner = $1 AND period = $2";
    pub const SCHEDULE_CLOSE: &str =
        "INSERT INTO hub_billing_due (owner, period, due_at_ms, version, body)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (owner, period) DO NOTHING";
    /// Conditional on the version read (`$3`): of two closes, one moves it.
    pub const MOVE_CLOSE: &str =
        "UPDATE hub_billing_due SET due_at_ms = $4, body = $5, version = $3 + 1
         WHERE owner = $1 AND period = $2 AND version = $3";
    pub const END_CLOSE: &str =
        "DELETE FROM hub_billing_due WHERE owner = $1 AND period = $2 AND version = $3";
    /// Months due to close on their owner's clock, as `DUE_APPLICATIONS`.
    pub const DUE_CLOSES: &str = due_on_owners_clock!("hub_billing_due");
    pub const DUE_PAYOUTS: &str = due_on_owners_clock!("hub_payouts");
    /// An application's signals, in the order they arrived (bounded).
    pub const SIGNALS: &str = "SELECT body FROM hub_marketplace_signals
         WHERE owner = $1 AND application_id = $2 ORDER BY id LIMIT $3";
}

/// A newest-first list of an owner's records keyed by time-ordered ids
/// (`<table> (owner, id)`, with an `(owner, <filter>, id)` index per
/// filter): the REST tier's resources page through one of these.
#[derive(Debug)]
pub struct Keyset {
    pub table: &'static str,
    /// Whose records a page is: `owner` (a tenant), or another column that
    /// partitions the table the same way (`borrower`).
    pub owner: &'static str,
    /// Columns a page may be filtered on, each by equality.
    pub filters: &'static [&'static str],
    /// A column a page may be searched in, after `filters`: its text
    /// contains the bound value, a `LIKE` pattern `contains` makes.
    pub search: Option<&'static str>,
    shapes: LazyLock<Vec<String>>,
}

/// The `LIKE` pattern (escaped with `\`) for text containing `needle`,
/// case-folded as a `search` column is.
pub fn contains(needle: &str) -> String {
    let mut pattern = String::with_capacity(needle.len() + 2);
    pattern.push('%');
    for c in needle.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// What one page asks for, which decides its statement (one per shape, as
/// for events: a plan fixed once cannot skip an `$n IS NULL OR …` branch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageShape {
    /// Toward newer records (`ending_before`).
    pub newer: bool,
    /// From an anchor record.
    pub cursor: bool,
    /// Only ids at or above a floor (`created_after` and the like).
    pub after: bool,
    /// Which of the keyset's filters are given, by position.
    pub filtered: u8,
}

impl PageShape {
    pub fn new(newer: bool, cursor: bool, after: bool, filters: &[bool]) -> Self {
        let filtered = filters
            .iter()
            .enumerate()
            .fold(0u8, |bits, (i, on)| bits | (u8::from(*on) << i));
        Self {
            newer,
            cursor,
            after,
            filtered,
        }
    }

    fn index(self) -> usize {
        usize::from(self.newer)
            | usize::from(self.cursor) << 1
            | usize::from(self.after) << 2
            | usize::from(self.filtered) << 3
    }

    fn from_index(i: usize) -> Self {
        Self {
            newer: i & 1 != 0,
            cursor: i & 2 != 0,
            after: i & 4 != 0,
            filtered: (i >> 3) as u8,
        }
    }
}

impl Keyset {
    const fn new(
        table: &'static str,
        filters: &'static [&'static str],
        build: fn() -> Vec<String>,
    ) -> Self {
        Self::owned_by(table, "owner", filters, build)
    }

    const fn owned_by(
        table: &'static str,
        owner: &'static str,
        filters: &'static [&'static str],
        build: fn() -> Vec<String>,
    ) -> Self {
        Self {
            table,
            owner,
            filters,
            search: None,
            shapes: LazyLock::new(build),
        }
    }

    const fn searched_in(mut self, column: &'static str) -> Self {
        self.search = Some(column);
        self
    }

    /// The filters, then the search, each a predicate on `$n`.
    fn predicates(&self) -> impl Iterator<Item = String> + '_ {
        let equal = self.filters.iter().map(|c| format!("{c} = "));
        equal.chain(self.search.map(|c| format!("{c} LIKE ")))
    }

    pub fn count(&self) -> usize {
        8 << self.predicates().count()
    }

    pub fn shapes(&self) -> impl Iterator<Item = PageShape> {
        (0..self.count()).map(PageShape::from_index)
    }

    /// Binds: `$1` owner, `$2` anchor id, then one per filter, then the id
    /// floor, then the rows to fetch.
    pub fn sql(&'static self, shape: PageShape) -> &'static str {
        &self.shapes[shape.index()]
    }

    fn build(&self) -> Vec<String> {
        (0..self.count())
            .map(|i| self.shape_sql(PageShape::from_index(i)))
            .collect()
    }

    fn shape_sql(&self, shape: PageShape) -> String {
        let (cmp, order) = if shape.newer {
            (">", "ASC")
        } else {
            ("<", "DESC")
        };
        let mut clauses = vec![if shape.cursor {
            format!("AND id {cmp} $2")
        } else {
            "AND CAST($2 AS TEXT) IS NULL".to_owned()
        }];
        let mut n = 3;
        for (i, predicate) in self.predicates().enumerate() {
            clauses.push(if shape.filtered & (1 << i) != 0 {
                let escape = if predicate.ends_with("LIKE ") {
                    " ESCAPE '\\'"
                } else {
                    ""
                };
                format!("AND {predicate}${n}{escape}")
            } else {
                format!("AND CAST(${n} AS TEXT) IS NULL")
            });
            n += 1;
        }
        let floor = n;
        clauses.push(if shape.after {
            format!("AND id >= ${floor}")
        } else {
            format!("AND CAST(${floor} AS TEXT) IS NULL")
        });
        format!(
            "SELECT body FROM {table} WHERE {owner} = $1 {clauses} ORDER BY id {order} LIMIT ${limit}",
            table = self.table,
            owner = self.owner,
            clauses = clauses.join(" "),
            limit = floor + 1,
        )
    }
}

/// Applications: by status and by reference, and searched (the dashboard).
pub static APPLICATIONS: Keyset = Keyset::new("hub_applications", &["status", "reference"], || {
    APPLICATIONS.build()
})
.searched_in("search_text");
/// Payments: by account and by status.
pub static PAYMENTS: Keyset = Keyset::new("hub_payments", &["account_id", "status"], || {
    PAYMENTS.build()
});

/// Servicing accounts: by status.
pub static ACCOUNTS: Keyset = Keyset::new("hub_accounts", &["status", "sub_account_id"], || {
    ACCOUNTS.build()
});
/// Introductions: by sub-account.
pub static INTRODUCTIONS: Keyset = Keyset::new("hub_introductions", &["sub_account_id"], || {
    INTRODUCTIONS.build()
});
/// A partner's statements, newest first: by period.
pub static STATEMENTS: Keyset = Keyset::new("hub_statements", &["period"], || STATEMENTS.build());
/// A partner's payouts, newest first: by sub-account.
pub static PAYOUTS: Keyset = Keyset::new("hub_payouts", &["sub_account_id"], || PAYOUTS.build());
/// A partner's sub-accounts, newest first.
pub static SUB_ACCOUNTS: Keyset = Keyset::new("hub_sub_accounts", &[], || SUB_ACCOUNTS.build());
/// A borrowing company's accounts in one environment, across partners (a
/// person's own, read with their identity-provider token): by status.
pub static COMPANY_ACCOUNTS: Keyset =
    Keyset::owned_by("hub_accounts", "borrower", &["status"], || {
        COMPANY_ACCOUNTS.build()
    });
/// Decisions: by outcome.
pub static DECISIONS: Keyset = Keyset::new("hub_decisions", &["outcome"], || DECISIONS.build());

/// The identity context's statements both backends run as written.
pub mod identity {
    use std::sync::LazyLock;

    /// A person by id; by e-mail only while not disabled.
    pub static SSO_USER: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT {} FROM sso_users WHERE user_id = $1",
            super::USER_COLUMNS
        )
    });
    pub static SSO_USER_BY_EMAIL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT {} FROM sso_users WHERE email = $1 AND disabled_at_ms IS NULL",
            super::USER_COLUMNS
        )
    });
    /// Changes no row if the e-mail is taken.
    pub static INSERT_USER: LazyLock<String> = LazyLock::new(|| {
        format!(
            "INSERT INTO sso_users ({}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
             ON CONFLICT (email) DO NOTHING",
            super::USER_COLUMNS
        )
    });
    macro_rules! ticket_columns {
        () => {
            "ticket_id, client_id, redirect_uri, scope, state, nonce, code_challenge, \
             prompt, max_age, login_hint, browser_hash, user_id, auth_time_ms, session_selector, \
             created_at_ms, expires_at_ms"
        };
    }
    pub const INSERT_TICKET: &str = concat!(
        "INSERT INTO sso_tickets (",
        ticket_columns!(),
        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
    );
    pub const TICKET: &str = concat!(
        "SELECT ",
        ticket_columns!(),
        " FROM sso_tickets WHERE ticket_id = $1"
    );
    /// A code, then whether it is spent (`used_at_ms`) and the family its
    /// redemption started.
    pub const CODE: &str =
        "SELECT selector, verifier_hash, client_id, redirect_uri, code_challenge, user_id,
             scope, nonce, auth_time_ms, session_selector, created_at_ms, expires_at_ms,
             used_at_ms, family_id
         FROM sso_codes WHERE selector = $1";
    /// Spends a code at `$3` if it is still unspent, naming the family its
    /// redemption starts (`$4`, null when refused): no row if another
    /// presentation spent it first.
    pub const SPEND_CODE: &str = "UPDATE sso_codes SET used_at_ms = $3, family_id = $4
         WHERE selector = $1 AND verifier_hash = $2 AND used_at_ms IS NULL";
    /// A refresh token (verifier hash, spent, expiry), then its family.
    pub const REFRESH_TOKEN: &str = "SELECT r.verifier_hash, r.used_at_ms, r.expires_at_ms,
             f.family_id, f.client_id, f.user_id, f.scope, f.auth_time_ms, f.session_selector,
             f.created_at_ms, f.revoked_at_ms
         FROM sso_refresh_tokens r JOIN sso_families f ON f.family_id = r.family_id
         WHERE r.selector = $1";
    /// Spends a refresh token at `$3` if it is still unspent and its family
    /// still live: no row if either changed since it was judged.
    pub const SPEND_REFRESH_TOKEN: &str = "UPDATE sso_refresh_tokens SET used_at_ms = $3
         WHERE selector = $1 AND verifier_hash = $2 AND used_at_ms IS NULL
           AND EXISTS (SELECT 1 FROM sso_families f
                       WHERE f.family_id = sso_refresh_tokens.family_id AND f.revoked_at_ms IS NULL)";
    pub const SSO_FAMILIES_INSERT: &str = "INSERT INTO sso_families (family_id, client_id, user_id, scope, auth_time_ms, session_selector, created_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)";
    pub const SSO_ACCESS_TOKENS_INSERT: &str = "INSERT INTO sso_access_tokens (selector, verifier_hash, family_id, scope, created_at_ms, expires_at_ms)
             VALUES ($1, $2, $3, $4, $5, $6)";
    pub const SSO_REFRESH_TOKENS_INSERT: &str = "INSERT INTO sso_refresh_tokens (selector, verifier_hash, family_id, created_at_ms, expires_at_ms)
             VALUES ($1, $2, $3, $4, $5)";
    pub const REVOKE_FAMILY: &str =
        "UPDATE sso_families SET revoked_at_ms = $2 WHERE family_id = $1 AND revoked_at_ms IS NULL";
    pub const SSO_TICKETS_DELETE_BY_TICKET_ID: &str =
        "DELETE FROM sso_tickets WHERE ticket_id = $1";
    pub const SSO_CONSENTS_INSERT: &str = "INSERT INTO sso_consents (user_id, client_id, scope, granted_at_ms) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (user_id, client_id) DO UPDATE SET scope = excluded.scope, granted_at_ms = excluded.granted_at_ms";
    pub const SSO_CODES_INSERT: &str = "INSERT INTO sso_codes (selector, verifier_hash, client_id, redirect_uri, code_challenge, user_id,
                                    scope, nonce, auth_time_ms, session_selector, created_at_ms, expires_at_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";
    pub const SSO_TICKETS_DELETE_BY_EXPIRES_AT_MS: &str =
        "DELETE FROM sso_tickets WHERE expires_at_ms < $1";
    pub const SSO_CODES_DELETE_BY_EXPIRES_AT_MS: &str =
        "DELETE FROM sso_codes WHERE expires_at_ms < $1";
    pub const SSO_SESSIONS_DELETE_BY_EXPIRES_AT_MS: &str =
        "DELETE FROM sso_sessions WHERE expires_at_ms < $1 OR ended_at_ms < $1";
    pub const SSO_ACCESS_TOKENS_DELETE_BY_EXPIRES_AT_MS: &str =
        "DELETE FROM sso_access_tokens WHERE expires_at_ms < $1";
    pub const SSO_REFRESH_TOKENS_DELETE_BY_EXPIRES_AT_MS: &str =
        "DELETE FROM sso_refresh_tokens WHERE expires_at_ms < $1";
    /// Families created before `$1` with no token left in them.
    pub const SSO_FAMILIES_DELETE_EMPTY: &str = "DELETE FROM sso_families WHERE created_at_ms < $1
           AND NOT EXISTS (SELECT 1 FROM sso_refresh_tokens r WHERE r.family_id = sso_families.family_id)
           AND NOT EXISTS (SELECT 1 FROM sso_access_tokens a WHERE a.family_id = sso_families.family_id)";
    /// Replaces a client of the same id: how the hosted journey keeps its
    /// own registration in step with the hub's address.
    pub const SSO_CLIENTS_PUT: &str = "INSERT INTO sso_clients (client_id, name, secret_hash, redirect_uris, post_logout_redirect_uris, created_at_ms)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (client_id) DO UPDATE SET name = excluded.name, secret_hash = excluded.secret_hash,
                 redirect_uris = excluded.redirect_uris, post_logout_redirect_uris = excluded.post_logout_redirect_uris";
    /// A disabled client is unknown to every flow.
    pub const SSO_CLIENTS_SELECT_BY_CLIENT_ID: &str = "SELECT client_id, name, secret_hash, redirect_uris, post_logout_redirect_uris, created_at_ms
                 FROM sso_clients WHERE client_id = $1 AND disabled_at_ms IS NULL";
    /// The operator's lists, oldest first.
    pub const SSO_USERS_LIST: &str =
        "SELECT user_id, email, given_name, family_name, company_number,
                 company_name, company_role, created_at_ms, disabled_at_ms
                 FROM sso_users ORDER BY created_at_ms, user_id";
    pub const SSO_CLIENTS_LIST: &str =
        "SELECT client_id, name, secret_hash IS NOT NULL, redirect_uris,
                 created_at_ms, disabled_at_ms FROM sso_clients ORDER BY created_at_ms, client_id";
    /// Disabling a person or a client: in the same transaction, every way
    /// back in closes.
    pub const DISABLE_USER: &str = "UPDATE sso_users SET disabled_at_ms = $2, updated_at_ms = $2
                 WHERE user_id = $1 AND disabled_at_ms IS NULL";
    pub const DISABLE_CLIENT: &str = "UPDATE sso_clients SET disabled_at_ms = $2
                 WHERE client_id = $1 AND disabled_at_ms IS NULL";
    /// What a write that changes a person (`$1`) only if they are not
    /// disabled (`DISABLE_USER`, `SET_PASSWORD`) does along with it, when
    /// it is a statement that may change no row: it carries the same
    /// condition and runs first, since a plan can skip a statement only on
    /// the one before it changing nothing.
    macro_rules! if_enabled_user {
        () => {
            "
           AND EXISTS (SELECT 1 FROM sso_users u WHERE u.user_id = $1 AND u.disabled_at_ms IS NULL)"
        };
    }
    /// Likewise for a client (`$1`, `DISABLE_CLIENT`).
    macro_rules! if_enabled_client {
        () => {
            "
           AND EXISTS (SELECT 1 FROM sso_clients k WHERE k.client_id = $1 AND k.disabled_at_ms IS NULL)"
        };
    }
    /// Likewise for a password reset: `$3` a live link of `$1`'s at `$2`,
    /// and `$1` not disabled.
    macro_rules! if_link_live {
        () => {
            "
           AND EXISTS (SELECT 1 FROM sso_password_resets p JOIN sso_users u ON u.user_id = p.user_id
                       WHERE p.token_hash = $3 AND p.user_id = $1 AND p.used_at_ms IS NULL
                         AND p.expires_at_ms > $2 AND u.disabled_at_ms IS NULL)"
        };
    }
    /// Sessions ended, token families revoked, unspent codes spent, of one
    /// person (`user_id`) or one client (`client_id`; a client has no
    /// sessions of its own).
    macro_rules! end_user_sessions {
        () => {
            "UPDATE sso_sessions SET ended_at_ms = $2 WHERE user_id = $1 AND ended_at_ms IS NULL"
        };
    }
    macro_rules! spend_user_codes {
        () => {
            "UPDATE sso_codes SET used_at_ms = $2 WHERE user_id = $1 AND used_at_ms IS NULL"
        };
    }
    pub const END_USER_SESSIONS: &str = end_user_sessions!();
    pub const END_USER_SESSIONS_IF_ENABLED: &str =
        concat!(end_user_sessions!(), if_enabled_user!());
    pub const END_USER_SESSIONS_IF_LINK_LIVE: &str = concat!(end_user_sessions!(), if_link_live!());
    pub const REVOKE_USER_FAMILIES: &str =
        "UPDATE sso_families SET revoked_at_ms = $2 WHERE user_id = $1 AND revoked_at_ms IS NULL";
    pub const SPEND_USER_CODES: &str = spend_user_codes!();
    pub const SPEND_USER_CODES_IF_ENABLED: &str = concat!(spend_user_codes!(), if_enabled_user!());
    pub const SPEND_USER_CODES_IF_LINK_LIVE: &str = concat!(spend_user_codes!(), if_link_live!());
    pub const REVOKE_CLIENT_FAMILIES: &str =
        "UPDATE sso_families SET revoked_at_ms = $2 WHERE client_id = $1 AND revoked_at_ms IS NULL";
    pub const SPEND_CLIENT_CODES_IF_ENABLED: &str = concat!(
        "UPDATE sso_codes SET used_at_ms = $2 WHERE client_id = $1 AND used_at_ms IS NULL",
        if_enabled_client!()
    );
    pub const SIGN_IN_TICKET: &str =
        "UPDATE sso_tickets SET user_id = $2, auth_time_ms = $3, session_selector = $4
             WHERE ticket_id = $1";
    pub const SSO_SESSIONS_INSERT: &str = "INSERT INTO sso_sessions (selector, verifier_hash, user_id, auth_time_ms, created_at_ms, expires_at_ms)
             VALUES ($1, $2, $3, $4, $5, $6)";
    pub const SSO_SESSIONS_SELECT_BY_SELECTOR: &str = "SELECT selector, verifier_hash, user_id, auth_time_ms, created_at_ms, expires_at_ms, ended_at_ms
                 FROM sso_sessions WHERE selector = $1";
    pub const END_SESSION: &str =
        "UPDATE sso_sessions SET ended_at_ms = $2 WHERE selector = $1 AND ended_at_ms IS NULL";
    pub const REVOKE_FAMILIES_OF_SESSION: &str = "UPDATE sso_families SET revoked_at_ms = $2
             WHERE session_selector = $1 AND revoked_at_ms IS NULL";
    pub const SSO_CONSENTS_SELECT_BY_USER_ID: &str =
        "SELECT user_id, client_id, scope, granted_at_ms FROM sso_consents
                 WHERE user_id = $1 AND client_id = $2";
    pub const SSO_EPOCH: &str = "SELECT n FROM sso_epoch WHERE id = 1";
    /// Password resets (issue #19).
    pub const PASSWORD_RESET_INSERT: &str = "INSERT INTO sso_password_resets (reset_id, token_hash, user_id, created_at_ms, expires_at_ms)
             VALUES ($1, $2, $3, $4, $5)";
    pub const PASSWORD_RESET_SELECT: &str =
        "SELECT reset_id, token_hash, user_id, created_at_ms, expires_at_ms, used_at_ms
                 FROM sso_password_resets WHERE token_hash = $1";
    macro_rules! spend_user_resets {
        () => {
            "UPDATE sso_password_resets SET used_at_ms = $2
             WHERE user_id = $1 AND used_at_ms IS NULL"
        };
    }
    pub const SPEND_USER_RESETS: &str = spend_user_resets!();
    pub const SPEND_USER_RESETS_IF_ENABLED: &str =
        concat!(spend_user_resets!(), if_enabled_user!());
    /// Spends every link of `$1`'s, `$3` with them, if `$3` is a live link
    /// of theirs and they are not disabled; no row if not.
    pub const SPEND_USER_RESETS_IF_LINK_LIVE: &str = concat!(spend_user_resets!(), if_link_live!());
    pub const SET_PASSWORD: &str = "UPDATE sso_users SET password_hash = $2, updated_at_ms = $3
             WHERE user_id = $1 AND disabled_at_ms IS NULL";
    /// A password change keeps the session it was made in (`$3`) and the
    /// token families issued under it; every other one ends.
    macro_rules! end_other_sessions {
        () => {
            "UPDATE sso_sessions SET ended_at_ms = $2
             WHERE user_id = $1 AND ended_at_ms IS NULL AND selector <> $3"
        };
    }
    pub const END_OTHER_SESSIONS: &str = end_other_sessions!();
    pub const END_OTHER_SESSIONS_IF_ENABLED: &str =
        concat!(end_other_sessions!(), if_enabled_user!());
    pub const REVOKE_OTHER_FAMILIES: &str = "UPDATE sso_families SET revoked_at_ms = $2
             WHERE user_id = $1 AND revoked_at_ms IS NULL
               AND (session_selector IS NULL OR session_selector <> $3)";
    pub const PASSWORD_RESETS_DELETE_BY_EXPIRES_AT_MS: &str =
        "DELETE FROM sso_password_resets WHERE expires_at_ms < $1";
    /// A mail to one person, due at once.
    pub const MAIL_PERSON: &str = "INSERT INTO mail_outbox (id, enquiry_id, recipient, subject, body, state, first_due_ms, due_ms)
             VALUES ($1, NULL, $2, $3, $4, 'pending', $5, $5)";
    /// `MAIL_PERSON` if the person `$6` is not disabled: one row, or none.
    pub const MAIL_PERSON_IF_ENABLED: &str = "INSERT INTO mail_outbox (id, enquiry_id, recipient, subject, body, state, first_due_ms, due_ms)
             SELECT $1, NULL, $2, $3, $4, 'pending', $5, $5
             WHERE EXISTS (SELECT 1 FROM sso_users u WHERE u.user_id = $6 AND u.disabled_at_ms IS NULL)";
}

/// The jobs context's statements both backends run as written.
pub mod jobs {
    /// An endpoint's deliveries, newest first, each with its event's type.
    pub const ENDPOINT_DELIVERIES: &str = "SELECT d.id, d.event_id, e.type, d.state, d.attempt, d.last_status, d.last_error, d.updated_at_ms,
             d.last_latency_ms, d.last_response
         FROM deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.endpoint_id = $1 AND d.owner = $2
         ORDER BY d.id DESC LIMIT $3";
    /// A failed delivery due again: the outbox attempts it once more, with
    /// the attempt number it had.
    pub const RETRY_FAILED_DELIVERY: &str = "UPDATE deliveries SET state = 'pending', due_ms = $3,
             lease_until_ms = NULL, lease_holder = NULL, updated_at_ms = $4
         WHERE id = $1 AND owner = $2 AND state = 'failed'";
    pub const DELIVERY_DELIVERED: &str =
        "UPDATE deliveries SET state = 'delivered', last_status = $2, last_error = NULL,
                     lease_until_ms = NULL, lease_holder = NULL, updated_at_ms = $3,
                     last_latency_ms = $4, last_response = $5 WHERE id = $1";
    pub const DELIVERY_RETRY: &str = "UPDATE deliveries SET attempt = attempt + 1, due_ms = $4, last_status = $2,
                     last_error = $3, lease_until_ms = NULL, lease_holder = NULL, updated_at_ms = $5,
                     last_latency_ms = $6, last_response = $7 WHERE id = $1";
    /// Any answer from the endpoint ends its run of failures.
    pub const ENDPOINT_ANSWERED: &str = "UPDATE webhook_endpoints SET failing_since_ms = NULL
         WHERE id = (SELECT endpoint_id FROM deliveries WHERE id = $1) AND failing_since_ms IS NOT NULL";
    /// A failure starts a run of failures, or continues the one under way.
    pub const ENDPOINT_FAILED: &str = "UPDATE webhook_endpoints SET failing_since_ms = $2
         WHERE id = (SELECT endpoint_id FROM deliveries WHERE id = $1) AND failing_since_ms IS NULL";
    pub const DELIVERY_GIVEN_UP: &str =
        "UPDATE deliveries SET state = 'failed', last_status = $2, last_error = $3,
                     lease_until_ms = NULL, lease_holder = NULL, updated_at_ms = $4,
                     last_latency_ms = $5, last_response = $6 WHERE id = $1";
    pub const MAIL_SENT: &str =
        "UPDATE mail_outbox SET state = 'sent', sent_at_ms = $2, attempts = attempts + 1,
                        lease_until_ms = NULL, lease_holder = NULL, last_error = NULL
                 WHERE id = $1 AND state = 'pending'";
}

/// The migrations context's statements both backends run as written.
pub mod migrations {
    pub const SCHEMA_MIGRATIONS_INSERT: &str =
        "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, $2, $3)";
}

/// The partner context's statements both backends run as written.
pub mod partner {
    macro_rules! client_columns {
        () => {
            "client_id, name, secret_hash, scopes, tier, status, created_at_ms, sandbox_client_id, \
             contact_email, white_label, previous_secret_hash, previous_secret_expires_at_ms"
        };
    }
    pub const PARTNER_CLIENT: &str = concat!(
        "SELECT ",
        client_columns!(),
        " FROM partner_clients WHERE client_id = $1"
    );
    pub const PARTNER_CLIENTS: &str = concat!(
        "SELECT ",
        client_columns!(),
        " FROM partner_clients ORDER BY created_at_ms, client_id"
    );
    /// One row always: the client's columns (NULL when unknown), then
    /// whether the token `$2` is revoked.
    pub const PARTNER_CLIENT_AND_REVOCATION: &str = concat!(
        "SELECT ",
        client_columns!(),
        ", EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $2)
         FROM (SELECT 1) AS one LEFT JOIN partner_clients ON client_id = $1"
    );
    /// Where `PARTNER_CLIENT_AND_REVOCATION`'s flag is.
    pub const REVOCATION_COLUMN: usize = 12;
    pub const REVOKE_JWT: &str =
        "INSERT INTO revoked_tokens (jti, client_id, expires_at_ms, revoked_at_ms)
         VALUES ($1, $2, $3, $4) ON CONFLICT (jti) DO NOTHING";
    pub const PARTNER_CLIENTS_INSERT: &str = "INSERT INTO partner_clients (client_id, name, secret_hash, scopes, tier, status, created_at_ms, updated_at_ms, sandbox_client_id, contact_email)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9)";
    pub const PARTNER_CLIENTS_SET_CONTACT_BY_CLIENT_ID: &str =
        "UPDATE partner_clients SET contact_email = $2, updated_at_ms = $3 WHERE client_id = $1";
    pub const PARTNER_CLIENTS_SET_WHITE_LABEL_BY_CLIENT_ID: &str =
        "UPDATE partner_clients SET white_label = $2, updated_at_ms = $3 WHERE client_id = $1";
    pub const PARTNER_CLIENTS_SET_STATUS_BY_CLIENT_ID: &str =
        "UPDATE partner_clients SET status = $2, updated_at_ms = $3 WHERE client_id = $1";
    /// The new secret; the replaced one kept until `$4` (when not null).
    /// Every right-hand side reads the row as it was.
    pub const PARTNER_CLIENTS_SET_SECRET_HASH_BY_CLIENT_ID: &str = "UPDATE partner_clients
         SET secret_hash = $2, updated_at_ms = $3,
             previous_secret_hash = CASE WHEN CAST($4 AS BIGINT) IS NULL THEN NULL ELSE secret_hash END,
             previous_secret_expires_at_ms = CAST($4 AS BIGINT)
         WHERE client_id = $1";
    pub const PARTNER_CLIENTS_END_PREVIOUS_SECRET_BY_CLIENT_ID: &str = "UPDATE partner_clients
         SET previous_secret_hash = NULL, previous_secret_expires_at_ms = NULL, updated_at_ms = $2
         WHERE client_id = $1 AND previous_secret_hash IS NOT NULL";
    pub const OAUTH_CLIENTS_INSERT: &str = "INSERT INTO partner_oauth_clients (client_id, partner_client_id, name, scopes, secret_hash, created_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6)";
    pub const OAUTH_CLIENTS_SELECT_BY_ID: &str = "SELECT client_id, partner_client_id, name, scopes, secret_hash, previous_secret_hash, previous_secret_expires_at_ms, created_at_ms, revoked_at_ms
         FROM partner_oauth_clients WHERE client_id = $1";
    pub const OAUTH_CLIENTS_SELECT_BY_PARTNER: &str = "SELECT client_id, partner_client_id, name, scopes, secret_hash, previous_secret_hash, previous_secret_expires_at_ms, created_at_ms, revoked_at_ms
         FROM partner_oauth_clients WHERE partner_client_id = $1 ORDER BY created_at_ms, client_id";
    /// As for the partner's own client (`$2` is the partner); a revoked
    /// client's secret never changes.
    pub const OAUTH_CLIENTS_SET_SECRET_HASH: &str = "UPDATE partner_oauth_clients
         SET secret_hash = $3,
             previous_secret_hash = CASE WHEN CAST($4 AS BIGINT) IS NULL THEN NULL ELSE secret_hash END,
             previous_secret_expires_at_ms = CAST($4 AS BIGINT)
         WHERE client_id = $1 AND partner_client_id = $2 AND revoked_at_ms IS NULL";
    pub const OAUTH_CLIENTS_END_PREVIOUS_SECRET: &str = "UPDATE partner_oauth_clients
         SET previous_secret_hash = NULL, previous_secret_expires_at_ms = NULL
         WHERE client_id = $1 AND partner_client_id = $2 AND previous_secret_hash IS NOT NULL";
    pub const OAUTH_CLIENTS_REVOKE: &str = "UPDATE partner_oauth_clients
         SET revoked_at_ms = $3, previous_secret_hash = NULL, previous_secret_expires_at_ms = NULL
         WHERE client_id = $1 AND partner_client_id = $2 AND revoked_at_ms IS NULL";
    pub const SIGNING_KEYS_SELECT_BY_PURPOSE: &str =
        "SELECT kid, purpose, state, sealed_private, public_key, created_at_ms FROM signing_keys
             WHERE purpose = $1 ORDER BY state = 'current' DESC, created_at_ms DESC";
    pub const DROP_PREVIOUS_KEY: &str =
        "DELETE FROM signing_keys WHERE purpose = $1 AND state = 'previous'";
    pub const DEMOTE_CURRENT_KEY: &str =
        "UPDATE signing_keys SET state = 'previous' WHERE purpose = $1 AND state = 'current'";
    pub const INSERT_CURRENT_KEY: &str =
        "INSERT INTO signing_keys (kid, purpose, state, sealed_private, public_key, created_at_ms)
         VALUES ($1, $2, 'current', $3, $4, $5)";
    /// The partial unique index allows one current key per purpose: the
    /// first of instances starting together wins.
    pub const ENSURE_CURRENT_KEY: &str =
        "INSERT INTO signing_keys (kid, purpose, state, sealed_private, public_key, created_at_ms)
         VALUES ($1, $2, 'current', $3, $4, $5) ON CONFLICT DO NOTHING";
    pub const PARTNER_EPOCH: &str = "SELECT n FROM partner_epoch WHERE id = 1";
    pub const API_KEYS_INSERT: &str = "INSERT INTO partner_api_keys (selector, verifier_hash, client_id, environment, scopes, created_at_ms, expires_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)";
    pub const API_KEYS_SELECT_BY_SELECTOR: &str = "SELECT selector, verifier_hash, client_id, environment, scopes, created_at_ms, expires_at_ms
         FROM partner_api_keys WHERE selector = $1";
    pub const API_KEYS_SELECT_BY_CLIENT: &str = "SELECT selector, verifier_hash, client_id, environment, scopes, created_at_ms, expires_at_ms
         FROM partner_api_keys WHERE client_id = $1 ORDER BY created_at_ms, selector";
    pub const API_KEYS_EXPIRE: &str = "UPDATE partner_api_keys SET expires_at_ms = $2
         WHERE selector = $1 AND (expires_at_ms IS NULL OR expires_at_ms > $2)";
    pub const API_KEYS_EXISTS: &str = "SELECT 1 FROM partner_api_keys WHERE selector = $1";
    pub const REQUEST_KEYS_INSERT: &str = "INSERT INTO partner_request_keys (key_id, client_id, public_key, created_at_ms, revoked_at_ms)
         VALUES ($1, $2, $3, $4, NULL)";
    pub const REQUEST_KEYS_SELECT_BY_ID: &str =
        "SELECT key_id, client_id, public_key, created_at_ms, revoked_at_ms
         FROM partner_request_keys WHERE key_id = $1";
    pub const REQUEST_KEYS_SELECT_BY_CLIENT: &str =
        "SELECT key_id, client_id, public_key, created_at_ms, revoked_at_ms
         FROM partner_request_keys WHERE client_id = $1 ORDER BY created_at_ms, key_id";
    pub const REQUEST_KEYS_REVOKE: &str = "UPDATE partner_request_keys SET revoked_at_ms = $2
         WHERE key_id = $1 AND revoked_at_ms IS NULL";
}

/// The public context's statements both backends run as written.
pub mod public {
    pub const INSERT_ENQUIRY: &str =
        "INSERT INTO enquiries (id, form, dept, fields, status, created_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6)";
    /// The enquiry's notification, due at once.
    pub const QUEUE_ENQUIRY_MAIL: &str = "INSERT INTO mail_outbox
         (id, enquiry_id, recipient, subject, body, state, first_due_ms, due_ms)
         VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6)";
    pub const CMS_PAGE: &str =
        "SELECT key, title, body, published, version, updated_at_ms FROM cms_pages WHERE key = $1";
    pub const CMS_PAGES: &str =
        "SELECT key, title, body, published, version, updated_at_ms FROM cms_pages ORDER BY key";
    pub const ENQUIRIES_SELECT_BY_ID: &str =
        "SELECT id, form, dept, fields, status, created_at_ms FROM enquiries WHERE id = $1";
    pub const MAIL_OUTBOX_SELECT_BY_ENQUIRY_ID: &str =
        "SELECT state, attempts, last_error FROM mail_outbox WHERE enquiry_id = $1";
}

/// The sandbox context's statements both backends run as written (except
/// that SQLite reads and inserts applications by id through `sqlite::row_keys`).
pub mod sandbox {
    pub const SANDBOX_EPOCH: &str = "SELECT n FROM sandbox_epoch WHERE id = 1";
    pub const APPLICATION_BODY: &str = "SELECT body FROM applications WHERE id = $1 AND owner = $2";
    pub const APPLICATION_RENDERED: &str =
        "SELECT version, rendered FROM applications WHERE id = $1 AND owner = $2";
    pub const APPLICATION_VERSION: &str =
        "SELECT version FROM applications WHERE id = $1 AND owner = $2";
    pub const EVENT: &str =
        "SELECT id, owner, type, created_at_ms, body FROM events WHERE id = $1 AND owner = $2";
    pub const EVENT_SEQ: &str = "SELECT seq FROM events WHERE id = $1 AND owner = $2";
    /// Two index probes (one aggregate each, so each is a probe).
    pub const EVENT_LOG_POSITION: &str = "SELECT (SELECT max(seq) FROM events WHERE owner = $1),
                (SELECT min(seq) FROM events WHERE owner = $1)";
    pub const ENDPOINTS_OF_OWNER: &str = "SELECT body, sealed_secret FROM webhook_endpoints WHERE owner = $1 ORDER BY created_at_ms, id";
    pub const IDEMPOTENCY_RECORD: &str = "SELECT fingerprint, status, body, created_at_ms FROM idempotency_keys WHERE owner = $1 AND key = $2";
    pub const SANDBOX_CLIENTS_INSERT: &str =
        "INSERT INTO sandbox_clients (client_id, name, secret_hash, scopes, status, created_at_ms)
             VALUES ($1, $2, $3, $4, 'active', $5)";
    pub const SETTINGS_INSERT: &str =
        "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING";
    pub const SETTINGS_SELECT_BY_NAME: &str = "SELECT value FROM settings WHERE name = $1";
    pub const REVOKE_SANDBOX_CLIENT: &str =
        "UPDATE sandbox_clients SET status = 'revoked', revoked_at_ms = $2
                 WHERE client_id = $1 AND status = 'active'";
    pub const SANDBOX_CLIENT: &str =
        "SELECT client_id, name, secret_hash, scopes, status, created_at_ms
         FROM sandbox_clients WHERE client_id = $1";
    pub const SANDBOX_CLIENTS: &str =
        "SELECT client_id, name, secret_hash, scopes, status, created_at_ms
         FROM sandbox_clients ORDER BY created_at_ms, client_id";
    /// Referred applications due on their owners' clocks, as (body, clock
    /// offset): `$1` the service clock's now, `$2` the page size, `$3` the
    /// owner where there is one.
    macro_rules! due_referrals {
        ($mine:literal) => {
            concat!(
                "SELECT a.body, coalesce(c.clock_offset_ms, 0) FROM applications a
         LEFT JOIN test_clocks c ON c.owner = a.owner
         WHERE a.review_due_ms IS NOT NULL
           AND a.review_due_ms - coalesce(c.clock_offset_ms, 0) <= $1 ",
                $mine,
                "
           AND a.review_due_ms <= $1 + (SELECT coalesce(max(clock_offset_ms), 0) FROM test_clocks) -- offsets are never negative: this bound lets the due-time index narrow the scan
         ORDER BY a.review_due_ms - coalesce(c.clock_offset_ms, 0), a.id
         LIMIT $2"
            )
        };
    }
    pub const DUE_REFERRALS: &str = due_referrals!("");
    pub const DUE_REFERRALS_OF_OWNER: &str = due_referrals!("AND a.owner = $3");
    pub const APPLICATIONS_INSERT: &str = "INSERT INTO applications (id, owner, status, version, created_at_ms, body, rendered, review_due_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
    pub const PAYMENTS_INSERT: &str =
        "INSERT INTO payments (id, owner, application_id, created_at_ms, body)
     VALUES ($1, $2, $3, $4, $5)";
    pub const CLOCK_OFFSET: &str = "SELECT clock_offset_ms FROM test_clocks WHERE owner = $1";
    pub const RESET_CLOCK: &str = "UPDATE test_clocks SET clock_offset_ms = 0 WHERE owner = $1";
}

/// The events context's statements both backends run as written.
pub mod events {
    pub const WEBHOOK_ENDPOINTS_INSERT: &str = "INSERT INTO webhook_endpoints (id, owner, status, enabled_events, sealed_secret, created_at_ms, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";
    /// A notice to a partner's contact address, if it has one.
    pub const MAIL_PARTNER: &str = "INSERT INTO mail_outbox (id, enquiry_id, recipient, subject, body, state, first_due_ms, due_ms)
     SELECT $1, NULL, contact_email, $3, $4, 'pending', $5, $5 FROM partner_clients
     WHERE client_id = $2 AND contact_email IS NOT NULL";
    /// A delivery of a stored event (a replay's).
    pub const QUEUE_DELIVERY: &str = "INSERT INTO deliveries (event_id, endpoint_id, owner, state, attempt, first_due_ms, due_ms, updated_at_ms)
     VALUES ($1, $2, $3, 'pending', 1, $4, $4, $4)";
    /// Takes one of the owner's endpoint slots if fewer than `$2` are taken.
    pub const TAKE_ENDPOINT_SLOT: &str =
        "INSERT INTO webhook_endpoint_counts AS c (owner, n) VALUES ($1, 1)
     ON CONFLICT (owner) DO UPDATE SET n = c.n + 1 WHERE c.n < $2";
    pub const FREE_ENDPOINT_SLOT: &str =
        "UPDATE webhook_endpoint_counts SET n = n - 1 WHERE owner = $1 AND n > 0";
    pub const UPDATE_ENDPOINT: &str = "UPDATE webhook_endpoints SET enabled_events = $3, body = $4
     WHERE id = $1 AND owner = $2";
    pub const DELETE_ENDPOINT: &str = "DELETE FROM webhook_endpoints WHERE id = $1 AND owner = $2";
    pub const ROTATE_ENDPOINT_SECRET: &str = "UPDATE webhook_endpoints
     SET previous_sealed_secret = sealed_secret, previous_secret_expires_at_ms = $4, sealed_secret = $3
     WHERE id = $1 AND owner = $2";
    pub const END_DELIVERIES_OF_ENDPOINT: &str = "UPDATE deliveries
     SET state = 'failed', last_error = 'endpoint disabled', lease_until_ms = NULL
     WHERE endpoint_id = $1 AND state = 'pending'";
    pub const END_DELIVERIES_OF_DELETED_ENDPOINT: &str = "UPDATE deliveries
     SET state = 'failed', last_error = 'endpoint deleted', lease_until_ms = NULL
     WHERE endpoint_id = $1 AND state = 'pending'";
}

/// The status page's statements (`$n` placeholders; SQLite reads them through
/// `dialect`).
pub mod status {
    pub const ADD_TALLY: &str =
        "INSERT INTO status_days (component, day, operational, degraded, partial, major)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (component, day) DO UPDATE SET
             operational = status_days.operational + excluded.operational,
             degraded = status_days.degraded + excluded.degraded,
             partial = status_days.partial + excluded.partial,
             major = status_days.major + excluded.major";
    pub const DAYS_SINCE: &str = "SELECT component, day, operational, degraded, partial, major
         FROM status_days WHERE day >= $1 ORDER BY day, component";
    /// The first due delivery in the due-time index's order (offsets are
    /// never negative, so the bound lets the index narrow the scan): how long
    /// it has waited on its owner's clock.
    pub const DELIVERY_LAG: &str = "SELECT $1 + coalesce(c.clock_offset_ms, 0) - d.due_ms
         FROM deliveries d
         JOIN webhook_endpoints w ON w.id = d.endpoint_id
         LEFT JOIN test_clocks c ON c.owner = d.owner
         WHERE d.state = 'pending' AND d.due_ms - coalesce(c.clock_offset_ms, 0) <= $1
           AND d.due_ms <= $1 + (SELECT coalesce(max(clock_offset_ms), 0) FROM test_clocks)
           AND w.status = 'enabled'
         ORDER BY d.due_ms, d.id
         LIMIT 1";
    pub const INSERT_INCIDENT: &str = "INSERT INTO status_incidents
         (id, kind, name, status, impact, components, scheduled_for_ms, scheduled_until_ms,
          created_at_ms, updated_at_ms, resolved_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, NULL)";
    pub const INSERT_UPDATE: &str =
        "INSERT INTO status_incident_updates (id, incident_id, status, body, created_at_ms)
         VALUES ($1, $2, $3, $4, $5)";
    /// Moves the incident only from the status its updater saw.
    pub const MOVE_INCIDENT: &str = "UPDATE status_incidents
         SET status = $2, updated_at_ms = $3,
             resolved_at_ms = CASE WHEN $4 THEN $3 ELSE resolved_at_ms END
         WHERE id = $1 AND status = $5";
    pub const INCIDENT: &str = "SELECT id, kind, name, status, impact, components,
         scheduled_for_ms, scheduled_until_ms, created_at_ms, updated_at_ms, resolved_at_ms
         FROM status_incidents WHERE id = $1";
    /// Those still open and those updated since `$1`, newest first.
    pub const RECENT_INCIDENTS: &str = "SELECT id, kind, name, status, impact, components,
         scheduled_for_ms, scheduled_until_ms, created_at_ms, updated_at_ms, resolved_at_ms
         FROM status_incidents WHERE resolved_at_ms IS NULL
         UNION
         SELECT id, kind, name, status, impact, components,
         scheduled_for_ms, scheduled_until_ms, created_at_ms, updated_at_ms, resolved_at_ms
         FROM status_incidents WHERE updated_at_ms >= $1
         ORDER BY created_at_ms DESC, id DESC LIMIT $2";
    pub const UPDATES_OF: &str = "SELECT id, incident_id, status, body, created_at_ms
         FROM status_incident_updates WHERE incident_id = $1 ORDER BY created_at_ms, id";
}

/// The partner dashboard's statements (`$n` placeholders).
/// A partner's brand (`context::brand`).
pub mod brand {
    pub const BRANDING: &str = "SELECT body FROM partner_branding WHERE partner_client_id = $1";
    pub const SET_BRANDING: &str =
        "INSERT INTO partner_branding (partner_client_id, updated_at_ms, body) VALUES ($1, $2, $3)
         ON CONFLICT (partner_client_id) DO UPDATE
         SET updated_at_ms = excluded.updated_at_ms, body = excluded.body";
    pub const LOGO: &str = "SELECT content_type, data FROM partner_logos WHERE sha256 = $1";
    /// The same bytes uploaded again are the same row.
    pub const INSERT_LOGO: &str =
        "INSERT INTO partner_logos (sha256, content_type, data) VALUES ($1, $2, $3)
         ON CONFLICT (sha256) DO NOTHING";
}

pub mod dashboard {
    pub const ADD_USAGE: &str =
        "INSERT INTO usage_days (owner, day, metric, count) VALUES ($1, $2, $3, $4)
         ON CONFLICT (owner, day, metric) DO UPDATE SET count = usage_days.count + excluded.count";
    /// A delivery attempt counted for its owner, by the delivery's id.
    pub const COUNT_DELIVERY: &str = "INSERT INTO usage_days (owner, day, metric, count)
         SELECT owner, $2, $3, 1 FROM deliveries WHERE id = $1
         ON CONFLICT (owner, day, metric) DO UPDATE SET count = usage_days.count + 1";
    pub const USAGE_SINCE: &str = "SELECT owner, day, metric, count FROM usage_days
         WHERE owner = $1 AND day >= $2 ORDER BY day, metric";
    macro_rules! invitation {
        () => {
            "SELECT id, partner_client_id, email, role, invited_by, created_at_ms, expires_at_ms
             FROM dashboard_invitations"
        };
    }
    pub const INSERT_INVITATION: &str = "INSERT INTO dashboard_invitations
         (id, partner_client_id, email, role, invited_by, created_at_ms, expires_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)";
    /// Accepted (`$3` the person) or withdrawn (`$3` null), once.
    pub const END_INVITATION: &str =
        "UPDATE dashboard_invitations SET ended_at_ms = $4, accepted_by = $3
         WHERE id = $1 AND partner_client_id = $2 AND ended_at_ms IS NULL";
    pub const OPEN_INVITATIONS_OF_PARTNER: &str = concat!(
        invitation!(),
        " WHERE partner_client_id = $1 AND ended_at_ms IS NULL AND expires_at_ms > $2
          ORDER BY created_at_ms DESC"
    );
    pub const OPEN_INVITATIONS_FOR_EMAIL: &str = concat!(
        invitation!(),
        " WHERE email = $1 AND ended_at_ms IS NULL AND expires_at_ms > $2 ORDER BY created_at_ms"
    );
    pub const PUT_STAFF: &str =
        "INSERT INTO dashboard_staff (partner_client_id, user_id, role, created_at_ms)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (partner_client_id, user_id) DO UPDATE SET role = excluded.role";
    pub const REMOVE_STAFF: &str =
        "DELETE FROM dashboard_staff WHERE partner_client_id = $1 AND user_id = $2";
    pub const END_STAFF_SESSIONS: &str = "UPDATE dashboard_sessions SET ended_at_ms = $3
         WHERE user_id = $2 AND partner_client_id = $1 AND ended_at_ms IS NULL";
    macro_rules! member {
        () => {
            "SELECT s.partner_client_id, s.user_id, s.role, s.created_at_ms, u.email, p.name
             FROM dashboard_staff s
             JOIN sso_users u ON u.user_id = s.user_id
             JOIN partner_clients p ON p.client_id = s.partner_client_id"
        };
    }
    pub const STAFF_OF_USER: &str = concat!(
        member!(),
        " WHERE s.user_id = $1 AND u.disabled_at_ms IS NULL ORDER BY p.name, s.partner_client_id"
    );
    pub const STAFF_OF_PARTNER: &str = concat!(
        member!(),
        " WHERE s.partner_client_id = $1 ORDER BY u.email"
    );
    pub const INSERT_SESSION: &str = "INSERT INTO dashboard_sessions
         (token_hash, user_id, partner_client_id, csrf, created_at_ms, expires_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6)";
    /// A live session with its person's current role: no longer staff, or
    /// disabled at the identity provider, is no session.
    pub const SESSION: &str = "SELECT d.token_hash, d.user_id, d.partner_client_id, d.csrf, d.created_at_ms, d.expires_at_ms,
                s.role, s.created_at_ms, u.email, p.name
         FROM dashboard_sessions d
         JOIN dashboard_staff s ON s.partner_client_id = d.partner_client_id AND s.user_id = d.user_id
         JOIN sso_users u ON u.user_id = d.user_id
         JOIN partner_clients p ON p.client_id = d.partner_client_id
         WHERE d.token_hash = $1 AND d.ended_at_ms IS NULL AND d.expires_at_ms > $2
           AND u.disabled_at_ms IS NULL";
    pub const END_SESSION: &str = "UPDATE dashboard_sessions SET ended_at_ms = $2
         WHERE token_hash = $1 AND ended_at_ms IS NULL";
    pub const INSERT_AUDIT: &str = "INSERT INTO dashboard_audit
         (id, partner_client_id, user_id, email, action, target, environment, at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
    pub const AUDIT_LOG: &str =
        "SELECT id, partner_client_id, user_id, email, action, target, environment, at_ms
         FROM dashboard_audit WHERE partner_client_id = $1
         ORDER BY at_ms DESC, id DESC LIMIT $2";
    /// With the identity provider's records: sessions past their expiry.
    pub const PRUNE_SESSIONS: &str = "DELETE FROM dashboard_sessions WHERE expires_at_ms < $1";
    pub const PRUNE_OPERATOR_SESSIONS: &str =
        "DELETE FROM operator_sessions WHERE expires_at_ms < $1";
    pub const INSERT_OPERATOR_SESSION: &str = "INSERT INTO operator_sessions
         (token_hash, user_id, csrf, created_at_ms, expires_at_ms) VALUES ($1, $2, $3, $4, $5)";
    /// A live operator session with its person's address now: disabled at
    /// the identity provider is no session.
    pub const OPERATOR_SESSION: &str =
        "SELECT o.token_hash, o.user_id, o.csrf, o.created_at_ms, o.expires_at_ms, u.email
         FROM operator_sessions o JOIN sso_users u ON u.user_id = o.user_id
         WHERE o.token_hash = $1 AND o.ended_at_ms IS NULL AND o.expires_at_ms > $2
           AND u.disabled_at_ms IS NULL";
    pub const END_OPERATOR_SESSION: &str = "UPDATE operator_sessions SET ended_at_ms = $2
         WHERE token_hash = $1 AND ended_at_ms IS NULL";
}
