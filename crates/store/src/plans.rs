//! The queries request paths run, each with a representative binding, so
//! that the conformance suite can ask every backend for its plan (`EXPLAIN`)
//! and require that each reaches its rows through an index: a list that
//! degrades to a full scan is invisible at ten rows and fatal at ten
//! million. A query added to a request path is added here.

use crate::sql;

/// A value bound to one placeholder, spelled by each backend in its plan test.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    Text(&'static str),
    Int(i64),
    Bytes(&'static [u8]),
    Null,
}

#[derive(Clone, Debug)]
pub struct Query {
    /// What the query is for, as a failing test names it.
    pub name: String,
    /// In the shared dialect: `$n` placeholders.
    pub sql: &'static str,
    /// `bind[n - 1]` for `$n`.
    pub bind: Vec<Value>,
    /// Whether the rows must also come out in index order (no sort): pages
    /// that stop after a few rows must not sort everything first.
    pub ordered_by_index: bool,
    /// The one backend that runs it; `None` for both.
    pub only: Option<Backend>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

const OWNER: Value = Value::Text("pk_test_owner");
const SELECTOR: Value = Value::Bytes(&[7; 16]);

fn query(name: impl Into<String>, sql: &'static str, bind: Vec<Value>) -> Query {
    Query {
        name: name.into(),
        sql,
        bind,
        ordered_by_index: false,
        only: None,
    }
}

/// SQLite finds an application by the key its id carries, then by the id
/// (`crate::sqlite::row_keys`): both halves of each statement must be
/// indexed lookups.
fn applications_by_row_key() -> Vec<Query> {
    use crate::sqlite::row_keys::{lending, sandbox};
    const KEY: Value = Value::Int(57_801_646_080_000_000);
    let sandbox_id = Value::Text("01J00000000000000000000000");
    let hub_id = Value::Text("app_01J00000000000000000000000");
    [
        (
            "sandbox application by id",
            sandbox::APPLICATION_RENDERED,
            vec![KEY, sandbox_id, OWNER],
        ),
        (
            "sandbox application's record",
            sandbox::APPLICATION_BODY,
            vec![KEY, sandbox_id, OWNER],
        ),
        (
            "sandbox application's version",
            sandbox::APPLICATION_VERSION,
            vec![KEY, sandbox_id, OWNER],
        ),
        (
            "hub application by id",
            lending::APPLICATION,
            vec![KEY, hub_id, OWNER],
        ),
        (
            "hub application version",
            lending::APPLICATION_VERSION,
            vec![KEY, hub_id, OWNER],
        ),
        (
            "any partner's application by id (the hosted journey)",
            lending::APPLICATION_ANY_OWNER,
            vec![KEY, hub_id],
        ),
    ]
    .into_iter()
    .map(|(name, sql, bind)| Query {
        only: Some(Backend::Sqlite),
        ..query(format!("{name}, by row key"), sql, bind)
    })
    .collect()
}

/// Every query a request path runs against a table that grows.
pub fn request_path_queries() -> Vec<Query> {
    let mut queries = vec![
        query(
            "partner API key by selector",
            sql::partner::API_KEYS_SELECT_BY_SELECTOR,
            vec![SELECTOR],
        ),
        query(
            "a partner's additional OAuth clients (the dashboard)",
            sql::partner::OAUTH_CLIENTS_SELECT_BY_PARTNER,
            vec![Value::Text("pk_live_01J00000000000000000000000")],
        ),
        Query {
            only: Some(Backend::Postgres),
            ..query(
                "sandbox application by id",
                sql::sandbox::APPLICATION_RENDERED,
                vec![Value::Text("01J00000000000000000000000"), OWNER],
            )
        },
        Query {
            only: Some(Backend::Postgres),
            ..query(
                "sandbox application's version",
                sql::sandbox::APPLICATION_VERSION,
                vec![Value::Text("01J00000000000000000000000"), OWNER],
            )
        },
        query(
            "sandbox event by id",
            sql::sandbox::EVENT,
            vec![Value::Text("01J00000000000000000000000"), OWNER],
        ),
        query(
            "an event's position in its owner's log",
            sql::sandbox::EVENT_SEQ,
            vec![Value::Text("01J00000000000000000000000"), OWNER],
        ),
        query(
            "the end of an owner's event log",
            sql::sandbox::EVENT_LOG_POSITION,
            vec![OWNER],
        ),
        query(
            "an owner's webhook endpoints",
            sql::sandbox::ENDPOINTS_OF_OWNER,
            vec![OWNER],
        ),
        Query {
            only: Some(Backend::Postgres),
            ..query(
                "an idempotency record",
                sql::sandbox::IDEMPOTENCY_RECORD,
                vec![OWNER, Value::Text("key-0001")],
            )
        },
        // SQLite keeps idempotency records in arrival order and indexes them
        // in arrears (`crate::sqlite::idempotency`): its three lookups.
        Query {
            only: Some(Backend::Sqlite),
            ..query(
                "an idempotency record by its place",
                crate::sqlite::idempotency::BY_SEQ,
                vec![Value::Int(7), OWNER, Value::Text("key-0001")],
            )
        },
        Query {
            only: Some(Backend::Sqlite),
            ..query(
                "an idempotency record past the accounted sequence",
                crate::sqlite::idempotency::PAST_FLOOR,
                vec![Value::Int(7), OWNER, Value::Text("key-0001")],
            )
        },
        Query {
            only: Some(Backend::Sqlite),
            ..query(
                "an idempotency record through the index",
                crate::sqlite::idempotency::INDEXED,
                vec![OWNER, Value::Text("key-0001")],
            )
        },
        query(
            "identity provider consents of a person for a client",
            sql::identity::SSO_CONSENTS_SELECT_BY_USER_ID,
            vec![Value::Text("usr_1"), Value::Text("cli_1")],
        ),
    ];
    queries.extend(applications_by_row_key());
    queries.push(query(
        "a password reset by its link",
        sql::identity::PASSWORD_RESET_SELECT,
        vec![SELECTOR],
    ));
    for (name, sql) in [
        (
            "a person's unused reset links",
            sql::identity::SPEND_USER_RESETS,
        ),
        ("a person's open sessions", sql::identity::END_USER_SESSIONS),
        (
            "a person's live token families",
            sql::identity::REVOKE_USER_FAMILIES,
        ),
        ("a person's unspent codes", sql::identity::SPEND_USER_CODES),
        // The writes that carry their deciding condition (`sql::identity`):
        // the condition's subquery is an indexed lookup too.
        (
            "a person's open sessions, if they are enabled",
            sql::identity::END_USER_SESSIONS_IF_ENABLED,
        ),
        (
            "a person's unspent codes, if they are enabled",
            sql::identity::SPEND_USER_CODES_IF_ENABLED,
        ),
        (
            "a person's unused reset links, if they are enabled",
            sql::identity::SPEND_USER_RESETS_IF_ENABLED,
        ),
    ] {
        queries.push(query(name, sql, vec![Value::Text("usr_1"), Value::Int(1)]));
    }
    for (name, sql) in [
        (
            "a person's other sessions",
            sql::identity::END_OTHER_SESSIONS,
        ),
        (
            "a person's other token families",
            sql::identity::REVOKE_OTHER_FAMILIES,
        ),
        (
            "a person's other sessions, if they are enabled",
            sql::identity::END_OTHER_SESSIONS_IF_ENABLED,
        ),
        (
            "a person's open sessions, if a reset link is live",
            sql::identity::END_USER_SESSIONS_IF_LINK_LIVE,
        ),
        (
            "a person's unspent codes, if a reset link is live",
            sql::identity::SPEND_USER_CODES_IF_LINK_LIVE,
        ),
        (
            "a person's reset links, if one is live",
            sql::identity::SPEND_USER_RESETS_IF_LINK_LIVE,
        ),
    ] {
        queries.push(query(
            name,
            sql,
            vec![Value::Text("usr_1"), Value::Int(1), SELECTOR],
        ));
    }
    queries.push(query(
        "a code spent once",
        sql::identity::SPEND_CODE,
        vec![SELECTOR, SELECTOR, Value::Int(1), Value::Null],
    ));
    queries.push(query(
        "a refresh token spent once",
        sql::identity::SPEND_REFRESH_TOKEN,
        vec![SELECTOR, SELECTOR, Value::Int(1)],
    ));
    queries.push(query(
        "hub decision by id",
        sql::lending::DECISION,
        vec![Value::Text("dec_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "identity check by id",
        sql::lending::VERIFICATION,
        vec![Value::Text("ver_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "servicing account by id",
        sql::lending::ACCOUNT,
        vec![Value::Text("acc_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "the underwriting queue",
        sql::lending::IN_REVIEW,
        vec![Value::Int(50)],
    ));
    queries.push(query(
        "any partner's decision by id (operator)",
        sql::lending::DECISION_ANY_OWNER,
        vec![Value::Text("dec_01J00000000000000000000000")],
    ));
    queries.push(query(
        "the underwriting log of a decision",
        sql::lending::ACTS_OF_DECISION,
        vec![Value::Text("dec_01J00000000000000000000000")],
    ));
    queries.push(query(
        "newest declined application of a company",
        sql::lending::LATEST_DECLINED,
        vec![OWNER, Value::Text("00000401")],
    ));
    queries.push(Query {
        only: Some(Backend::Postgres),
        ..query(
            "hub application by id",
            sql::lending::APPLICATION,
            vec![Value::Text("app_01J00000000000000000000000"), OWNER],
        )
    });
    queries.push(Query {
        only: Some(Backend::Postgres),
        ..query(
            "hub application version",
            sql::lending::APPLICATION_VERSION,
            vec![Value::Text("app_01J00000000000000000000000"), OWNER],
        )
    });
    queries.push(Query {
        only: Some(Backend::Postgres),
        ..query(
            "any partner's application by id (the hosted journey)",
            sql::lending::APPLICATION_ANY_OWNER,
            vec![Value::Text("app_01J00000000000000000000000")],
        )
    });
    queries.push(query(
        "the hosted journey of an application",
        sql::lending::JOURNEY,
        vec![Value::Text("app_01J00000000000000000000000")],
    ));
    queries.push(query(
        "any partner's account by id (operator)",
        sql::lending::ACCOUNT_ANY_OWNER,
        vec![Value::Text("acc_01J00000000000000000000000")],
    ));
    queries.push(query(
        "payment by id",
        sql::lending::PAYMENT,
        vec![Value::Text("pay_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "any partner's payment by id (the pay page)",
        sql::lending::PAYMENT_ANY_OWNER,
        vec![Value::Text("pay_01J00000000000000000000000")],
    ));
    queries.push(query(
        "payment exists (a cursor)",
        sql::lending::PAYMENT_EXISTS,
        vec![Value::Text("pay_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "a company's account by id (a person's own)",
        sql::lending::COMPANY_ACCOUNT,
        vec![
            Value::Text("acc_01J00000000000000000000000"),
            Value::Text("00000401/live"),
        ],
    ));
    queries.push(query(
        "a company's account exists (a cursor)",
        sql::lending::COMPANY_ACCOUNT_EXISTS,
        vec![
            Value::Text("acc_01J00000000000000000000000"),
            Value::Text("00000401/live"),
        ],
    ));
    queries.push(query(
        "introduction exists (a cursor)",
        sql::commercial::INTRODUCTION_EXISTS,
        vec![Value::Text("intro_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "sub-account by id",
        sql::commercial::SUB_ACCOUNT,
        vec![Value::Text("sub_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "sub-account exists (a cursor)",
        sql::commercial::SUB_ACCOUNT_EXISTS,
        vec![Value::Text("sub_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "marketplace app by id",
        sql::commercial::APP,
        vec![Value::Text("mkt_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "any partner's marketplace app by id (the operator's review)",
        sql::commercial::APP_ANY_OWNER,
        vec![Value::Text("mkt_01J00000000000000000000000")],
    ));
    queries.push(Query {
        ordered_by_index: true,
        ..query(
            "marketplace apps pending review, oldest first",
            sql::commercial::APPS_IN_REVIEW,
            vec![Value::Text("pending_review"), Value::Int(50)],
        )
    });
    queries.push(Query {
        ordered_by_index: true,
        ..query(
            "an application's marketplace signals (its decision)",
            sql::commercial::SIGNALS,
            vec![
                OWNER,
                Value::Text("app_01J00000000000000000000000"),
                Value::Int(1000),
            ],
        )
    });
    queries.push(query(
        "statement by id",
        sql::commercial::STATEMENT,
        vec![Value::Text("pst_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "statement exists (a cursor)",
        sql::commercial::STATEMENT_EXISTS,
        vec![Value::Text("pst_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "payout exists (a cursor)",
        sql::commercial::PAYOUT_EXISTS,
        vec![Value::Text("po_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "an owner's statement for a month (the close)",
        sql::commercial::STATEMENT_FOR,
        vec![OWNER, Value::Text("2026-11")],
    ));
    queries.push(query(
        "an owner's payouts for a month (the close)",
        sql::commercial::PERIOD_PAYOUTS,
        vec![OWNER, Value::Text("2026-11")],
    ));
    queries.push(Query {
        ordered_by_index: true,
        ..query(
            "the corrections a month's statement settles (the close)",
            sql::commercial::ADJUSTMENTS,
            vec![OWNER, Value::Text("2026-11")],
        )
    });
    queries.push(query(
        "an owner's month waiting to close (the operator's close)",
        sql::commercial::WAITING_CLOSE,
        vec![OWNER, Value::Text("2026-11")],
    ));
    queries.push(query(
        "a partner's agreements (the close)",
        sql::commercial::PARTNER_AGREEMENTS,
        vec![OWNER],
    ));
    queries.push(Query {
        ordered_by_index: true,
        ..query(
            "every account of an owner (the close)",
            sql::commercial::OWNER_ACCOUNTS,
            vec![OWNER],
        )
    });
    queries.push(Query {
        ordered_by_index: true,
        ..query(
            "every sub-account of an owner (the close)",
            sql::commercial::OWNER_SUB_ACCOUNTS,
            vec![OWNER],
        )
    });
    queries.push(query(
        "owners with accounts opened in a month (the operator's close)",
        sql::commercial::BILLING_OWNERS,
        vec![Value::Int(1_700_000_000_000), Value::Int(1_702_000_000_000)],
    ));
    queries.push(query(
        "schedule by id",
        sql::lending::SCHEDULE,
        vec![Value::Text("sch_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "mandate by id",
        sql::lending::MANDATE,
        vec![Value::Text("mnd_01J00000000000000000000000"), OWNER],
    ));
    queries.push(query(
        "any partner's mandate by id (the pay page)",
        sql::lending::MANDATE_ANY_OWNER,
        vec![Value::Text("mnd_01J00000000000000000000000")],
    ));
    queries.push(query(
        "dashboard session by token, with its staff member",
        sql::dashboard::SESSION,
        vec![SELECTOR, Value::Int(1_700_000_000_000)],
    ));
    queries.push(query(
        "operator session by token, with its person's address (the operations console)",
        sql::dashboard::OPERATOR_SESSION,
        vec![SELECTOR, Value::Int(1_700_000_000_000)],
    ));
    const LOAN: Value = Value::Text("acc_01J00000000000000000000000");
    const AT: Value = Value::Int(1_700_000_000_000);
    const TRANSFER: Value = Value::Text("pay_01J00000000000000000000000.1.settled");
    for (name, sql, bind) in [
        (
            "a loan's transfers (every balance is derived from them)",
            sql::ledger::LOAN_TRANSFERS,
            vec![LOAN],
        ),
        (
            "a loan's statement, the newest page",
            sql::ledger::LOAN_POSTED_NEWEST,
            vec![LOAN, Value::Int(21)],
        ),
        (
            "a loan's statement, a page of older entries",
            sql::ledger::LOAN_POSTED_OLDER,
            vec![LOAN, AT, TRANSFER, Value::Int(21)],
        ),
        (
            "a loan's statement, a page of newer entries",
            sql::ledger::LOAN_POSTED_NEWER,
            vec![LOAN, AT, TRANSFER, Value::Int(21)],
        ),
    ] {
        queries.push(Query {
            ordered_by_index: true,
            ..query(name, sql, bind)
        });
    }
    queries.push(query(
        "a sub-account's failed payouts (a new payout account issues them again)",
        sql::commercial::FAILED_PAYOUTS,
        vec![OWNER, Value::Text("sub_01J00000000000000000000000")],
    ));
    queries.push(query(
        "a loan's statement entry (a cursor)",
        sql::ledger::LOAN_POSTED_AT,
        vec![LOAN, AT],
    ));
    queries.push(query(
        "reconciliation items, open ones first (the operations console)",
        sql::ledger::RECENT_ITEMS,
        vec![Value::Int(200)],
    ));
    queries.push(query(
        "a person's partners (dashboard sign-in)",
        sql::dashboard::STAFF_OF_USER,
        vec![Value::Text("usr_01J00000000000000000000000")],
    ));
    queries.push(Query {
        name: "an endpoint's deliveries, newest first (the dashboard)".into(),
        sql: sql::jobs::ENDPOINT_DELIVERIES,
        bind: vec![
            Value::Text("whe_01J00000000000000000000000"),
            OWNER,
            Value::Int(100),
        ],
        ordered_by_index: true,
        only: None,
    });
    queries.push(Query {
        ordered_by_index: true,
        ..query(
            "an account's payment schedules (the dashboard)",
            sql::lending::ACCOUNT_SCHEDULES,
            vec![OWNER, Value::Text("acc_01J00000000000000000000000")],
        )
    });
    queries.push(query(
        "a partner's API keys (the dashboard)",
        sql::partner::API_KEYS_SELECT_BY_CLIENT,
        vec![Value::Text("pk_live_owner")],
    ));
    queries.push(query(
        "a partner's open invitations (the dashboard)",
        sql::dashboard::OPEN_INVITATIONS_OF_PARTNER,
        vec![Value::Text("pk_live_owner"), Value::Int(1_000)],
    ));
    queries.push(query(
        "the open invitations naming an address (dashboard sign-in)",
        sql::dashboard::OPEN_INVITATIONS_FOR_EMAIL,
        vec![Value::Text("ada@example.com"), Value::Int(1_000)],
    ));
    queries.push(Query {
        ordered_by_index: true,
        ..query(
            "an owner's chart counts (the dashboard)",
            sql::dashboard::USAGE_SINCE,
            vec![OWNER, Value::Text("2026-10-28")],
        )
    });
    queries.push(query(
        "a partner's audit log",
        sql::dashboard::AUDIT_LOG,
        vec![Value::Text("pk_live_owner"), Value::Int(100)],
    ));
    queries.push(query(
        "a partner's staff",
        sql::dashboard::STAFF_OF_PARTNER,
        vec![Value::Text("pk_live_owner")],
    ));
    queries.push(query(
        "status page: every component's last 90 days",
        sql::status::DAYS_SINCE,
        vec![Value::Text("2026-08-29")],
    ));
    queries.push(query(
        "status page: an incident's updates",
        sql::status::UPDATES_OF,
        vec![Value::Text("inc_01J00000000000000000000000")],
    ));
    queries.push(query(
        "account exists (a cursor)",
        sql::lending::ACCOUNT_EXISTS,
        vec![Value::Text("acc_01J00000000000000000000000"), OWNER],
    ));
    // Each keyset with its filters' values, and the filters every request
    // gives (a ledger is always one account's).
    let keysets: [(&'static sql::Keyset, &[Value], u8); 9] = [
        (&sql::STATEMENTS, &[Value::Text("2026-11")], 0),
        (
            &sql::PAYOUTS,
            &[Value::Text("sub_01J00000000000000000000000")],
            0,
        ),
        (
            &sql::APPLICATIONS,
            &[
                Value::Text("created"),
                Value::Text("INV-1"),
                Value::Text("%acme%"),
            ],
            0,
        ),
        (&sql::DECISIONS, &[Value::Text("approved")], 0),
        (
            &sql::ACCOUNTS,
            &[
                Value::Text("performing"),
                Value::Text("sub_01J00000000000000000000000"),
            ],
            0,
        ),
        (&sql::SUB_ACCOUNTS, &[], 0),
        (
            &sql::INTRODUCTIONS,
            &[Value::Text("sub_01J00000000000000000000000")],
            0,
        ),
        (&sql::COMPANY_ACCOUNTS, &[Value::Text("performing")], 0),
        (
            &sql::PAYMENTS,
            &[
                Value::Text("acc_01J00000000000000000000000"),
                Value::Text("paid"),
            ],
            0,
        ),
    ];
    for (keyset, filter_values, always) in keysets {
        for shape in keyset.shapes().filter(|s| s.filtered & always == always) {
            let bound = |on: bool, value: Value| if on { value } else { Value::Null };
            let mut bind = vec![
                OWNER,
                bound(shape.cursor, Value::Text("app_01J00000000000000000000000")),
            ];
            for (i, value) in filter_values.iter().enumerate() {
                bind.push(bound(shape.filtered & (1 << i) != 0, *value));
            }
            bind.push(bound(
                shape.after,
                Value::Text("app_01H00000000000000000000000"),
            ));
            bind.push(Value::Int(26));
            queries.push(Query {
                name: format!("{} by {} page {shape:?}", keyset.table, keyset.owner),
                sql: keyset.sql(shape),
                bind,
                ordered_by_index: true,
                only: None,
            });
        }
    }
    for i in 0..sql::EventsPage::COUNT {
        let shape = sql::EventsPage::from_index(i);
        let bound = |on: bool, value: Value| if on { value } else { Value::Null };
        queries.push(Query {
            name: format!("events page {shape:?}"),
            sql: sql::events_page(shape),
            bind: vec![
                OWNER,
                bound(shape.cursor, Value::Int(1_000)),
                bound(shape.typed, Value::Text("application.created")),
                Value::Int(21),
                bound(shape.after, Value::Int(1_700_000_000_000)),
            ],
            ordered_by_index: true,
            only: None,
        });
    }
    queries
}
