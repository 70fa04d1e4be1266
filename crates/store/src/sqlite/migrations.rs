//! Versioned migrations, embedded in the binary and applied in order, each in
//! its own transaction.

use rusqlite::Connection;

use super::unavailable;
use crate::error::StoreError;

const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "sandbox",
        include_str!("../../migrations/sqlite/0001_sandbox.sql"),
    ),
    (
        2,
        "settings",
        include_str!("../../migrations/sqlite/0002_settings.sql"),
    ),
    (
        3,
        "partner",
        include_str!("../../migrations/sqlite/0003_partner.sql"),
    ),
    (
        4,
        "partner_epoch",
        include_str!("../../migrations/sqlite/0004_partner_epoch.sql"),
    ),
    (
        5,
        "identity",
        include_str!("../../migrations/sqlite/0005_identity.sql"),
    ),
    (
        6,
        "public",
        include_str!("../../migrations/sqlite/0006_public.sql"),
    ),
    (
        7,
        "test_helpers",
        include_str!("../../migrations/sqlite/0007_test_helpers.sql"),
    ),
    (
        8,
        "sso_epoch",
        include_str!("../../migrations/sqlite/0008_sso_epoch.sql"),
    ),
    (
        9,
        "jobs",
        include_str!("../../migrations/sqlite/0009_jobs.sql"),
    ),
    (
        10,
        "api_keys",
        include_str!("../../migrations/sqlite/0010_api_keys.sql"),
    ),
    (
        11,
        "events_created",
        include_str!("../../migrations/sqlite/0011_events_created.sql"),
    ),
    (
        12,
        "endpoint_failing_since",
        include_str!("../../migrations/sqlite/0012_endpoint_failing_since.sql"),
    ),
    (
        13,
        "endpoint_slots",
        include_str!("../../migrations/sqlite/0013_endpoint_slots.sql"),
    ),
    (
        14,
        "events_retention",
        include_str!("../../migrations/sqlite/0014_events_retention.sql"),
    ),
    (
        15,
        "partner_notices",
        include_str!("../../migrations/sqlite/0015_partner_notices.sql"),
    ),
    (
        16,
        "request_keys",
        include_str!("../../migrations/sqlite/0016_request_keys.sql"),
    ),
    (
        17,
        "test_clocks",
        include_str!("../../migrations/sqlite/0017_test_clocks.sql"),
    ),
    (
        18,
        "hub_applications",
        include_str!("../../migrations/sqlite/0018_hub_applications.sql"),
    ),
    (
        19,
        "identity_checks",
        include_str!("../../migrations/sqlite/0019_identity_checks.sql"),
    ),
    (
        20,
        "decisions",
        include_str!("../../migrations/sqlite/0020_decisions.sql"),
    ),
    (
        21,
        "cooling_off",
        include_str!("../../migrations/sqlite/0021_cooling_off.sql"),
    ),
    (
        22,
        "underwriting",
        include_str!("../../migrations/sqlite/0022_underwriting.sql"),
    ),
    (
        23,
        "due_at",
        include_str!("../../migrations/sqlite/0023_due_at.sql"),
    ),
    (
        24,
        "accounts",
        include_str!("../../migrations/sqlite/0024_accounts.sql"),
    ),
    (
        25,
        "partial_indexes",
        include_str!("../../migrations/sqlite/0025_partial_indexes.sql"),
    ),
    (
        26,
        "journeys",
        include_str!("../../migrations/sqlite/0026_journeys.sql"),
    ),
    (
        27,
        "ledger",
        include_str!("../../migrations/sqlite/0027_ledger.sql"),
    ),
    (
        28,
        "payments",
        include_str!("../../migrations/sqlite/0028_payments.sql"),
    ),
    (
        29,
        "account_reviews",
        include_str!("../../migrations/sqlite/0029_account_reviews.sql"),
    ),
    (
        30,
        "schedules",
        include_str!("../../migrations/sqlite/0030_schedules.sql"),
    ),
    (
        31,
        "account_borrowers",
        include_str!("../../migrations/sqlite/0031_account_borrowers.sql"),
    ),
    (
        32,
        "sub_accounts",
        include_str!("../../migrations/sqlite/0032_sub_accounts.sql"),
    ),
    (
        33,
        "introductions",
        include_str!("../../migrations/sqlite/0033_introductions.sql"),
    ),
    (
        34,
        "sso_disabling",
        include_str!("../../migrations/sqlite/0034_sso_disabling.sql"),
    ),
    (
        35,
        "marketplace",
        include_str!("../../migrations/sqlite/0035_marketplace.sql"),
    ),
    (
        36,
        "billing",
        include_str!("../../migrations/sqlite/0036_billing.sql"),
    ),
    (
        37,
        "sso_password_resets",
        include_str!("../../migrations/sqlite/0037_sso_password_resets.sql"),
    ),
    (
        38,
        "status_page",
        include_str!("../../migrations/sqlite/0038_status_page.sql"),
    ),
    (
        39,
        "dashboard",
        include_str!("../../migrations/sqlite/0039_dashboard.sql"),
    ),
    (
        40,
        "client_secret_overlap",
        include_str!("../../migrations/sqlite/0040_client_secret_overlap.sql"),
    ),
    (
        41,
        "delivery_answers",
        include_str!("../../migrations/sqlite/0041_delivery_answers.sql"),
    ),
    (
        42,
        "dashboard_invitations",
        include_str!("../../migrations/sqlite/0042_dashboard_invitations.sql"),
    ),
    (
        43,
        "usage_days",
        include_str!("../../migrations/sqlite/0043_usage_days.sql"),
    ),
    (
        44,
        "partner_oauth_clients",
        include_str!("../../migrations/sqlite/0044_partner_oauth_clients.sql"),
    ),
];

/// Applies pending migrations; returns how many ran.
pub fn migrate(conn: &mut Connection) -> Result<usize, StoreError> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version       INTEGER PRIMARY KEY,
             name          TEXT NOT NULL,
             applied_at_ms INTEGER NOT NULL
         )",
    )
    .map_err(unavailable)?;
    let mut ran = 0;
    for (version, name, sql) in MIGRATIONS {
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(unavailable)?;
        let applied: bool = tx
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = ?1)",
                [version],
                |r| r.get(0),
            )
            .map_err(unavailable)?;
        if !applied {
            tx.execute_batch(sql).map_err(unavailable)?;
            let now = lendhub_domain::clock::unix_ms(time::OffsetDateTime::now_utc());
            tx.execute(
                shared!(crate::sql::migrations::SCHEMA_MIGRATIONS_INSERT),
                rusqlite::params![version, name, now],
            )
            .map_err(unavailable)?;
            ran += 1;
        }
        tx.commit().map_err(unavailable)?;
    }
    Ok(ran)
}
