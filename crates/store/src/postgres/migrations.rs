//! Versioned migrations, embedded in the binary. All pending migrations run in
//! one transaction under an advisory lock, so instances starting together
//! apply each exactly once and never see a half-migrated schema.

use tokio_postgres::Client;

use super::errors::db;
use crate::error::StoreError;

const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "sandbox",
        include_str!("../../migrations/postgres/0001_sandbox.sql"),
    ),
    (
        2,
        "settings",
        include_str!("../../migrations/postgres/0002_settings.sql"),
    ),
    (
        3,
        "partner",
        include_str!("../../migrations/postgres/0003_partner.sql"),
    ),
    (
        4,
        "partner_epoch",
        include_str!("../../migrations/postgres/0004_partner_epoch.sql"),
    ),
    (
        5,
        "identity",
        include_str!("../../migrations/postgres/0005_identity.sql"),
    ),
    (
        6,
        "public",
        include_str!("../../migrations/postgres/0006_public.sql"),
    ),
    (
        7,
        "test_helpers",
        include_str!("../../migrations/postgres/0007_test_helpers.sql"),
    ),
    (
        8,
        "sso_epoch",
        include_str!("../../migrations/postgres/0008_sso_epoch.sql"),
    ),
    (
        9,
        "jobs",
        include_str!("../../migrations/postgres/0009_jobs.sql"),
    ),
    (
        10,
        "api_keys",
        include_str!("../../migrations/postgres/0010_api_keys.sql"),
    ),
    (
        11,
        "events_created",
        include_str!("../../migrations/postgres/0011_events_created.sql"),
    ),
    (
        12,
        "endpoint_failing_since",
        include_str!("../../migrations/postgres/0012_endpoint_failing_since.sql"),
    ),
    (
        13,
        "endpoint_slots",
        include_str!("../../migrations/postgres/0013_endpoint_slots.sql"),
    ),
    (
        14,
        "events_retention",
        include_str!("../../migrations/postgres/0014_events_retention.sql"),
    ),
    (
        15,
        "partner_notices",
        include_str!("../../migrations/postgres/0015_partner_notices.sql"),
    ),
    (
        16,
        "request_keys",
        include_str!("../../migrations/postgres/0016_request_keys.sql"),
    ),
    (
        17,
        "test_clocks",
        include_str!("../../migrations/postgres/0017_test_clocks.sql"),
    ),
    (
        18,
        "hub_applications",
        include_str!("../../migrations/postgres/0018_hub_applications.sql"),
    ),
    (
        19,
        "identity_checks",
        include_str!("../../migrations/postgres/0019_identity_checks.sql"),
    ),
    (
        20,
        "decisions",
        include_str!("../../migrations/postgres/0020_decisions.sql"),
    ),
    (
        21,
        "cooling_off",
        include_str!("../../migrations/postgres/0021_cooling_off.sql"),
    ),
    (
        22,
        "underwriting",
        include_str!("../../migrations/postgres/0022_underwriting.sql"),
    ),
    (
        23,
        "due_at",
        include_str!("../../migrations/postgres/0023_due_at.sql"),
    ),
    (
        24,
        "accounts",
        include_str!("../../migrations/postgres/0024_accounts.sql"),
    ),
    (
        25,
        "partial_indexes",
        include_str!("../../migrations/postgres/0025_partial_indexes.sql"),
    ),
    (
        26,
        "journeys",
        include_str!("../../migrations/postgres/0026_journeys.sql"),
    ),
    (
        27,
        "ledger",
        include_str!("../../migrations/postgres/0027_ledger.sql"),
    ),
    (
        28,
        "payments",
        include_str!("../../migrations/postgres/0028_payments.sql"),
    ),
    (
        29,
        "account_reviews",
        include_str!("../../migrations/postgres/0029_account_reviews.sql"),
    ),
    (
        30,
        "schedules",
        include_str!("../../migrations/postgres/0030_schedules.sql"),
    ),
    (
        31,
        "account_borrowers",
        include_str!("../../migrations/postgres/0031_account_borrowers.sql"),
    ),
    (
        32,
        "sub_accounts",
        include_str!("../../migrations/postgres/0032_sub_accounts.sql"),
    ),
    (
        33,
        "introductions",
        include_str!("../../migrations/postgres/0033_introductions.sql"),
    ),
    (
        34,
        "sso_disabling",
        include_str!("../../migrations/postgres/0034_sso_disabling.sql"),
    ),
    (
        35,
        "marketplace",
        include_str!("../../migrations/postgres/0035_marketplace.sql"),
    ),
    (
        36,
        "billing",
        include_str!("../../migrations/postgres/0036_billing.sql"),
    ),
    (
        37,
        "sso_password_resets",
        include_str!("../../migrations/postgres/0037_sso_password_resets.sql"),
    ),
    (
        38,
        "status_page",
        include_str!("../../migrations/postgres/0038_status_page.sql"),
    ),
    (
        39,
        "dashboard",
        include_str!("../../migrations/postgres/0039_dashboard.sql"),
    ),
    (
        40,
        "client_secret_overlap",
        include_str!("../../migrations/postgres/0040_client_secret_overlap.sql"),
    ),
    (
        41,
        "delivery_answers",
        include_str!("../../migrations/postgres/0041_delivery_answers.sql"),
    ),
    (
        42,
        "dashboard_invitations",
        include_str!("../../migrations/postgres/0042_dashboard_invitations.sql"),
    ),
    (
        43,
        "usage_days",
        include_str!("../../migrations/postgres/0043_usage_days.sql"),
    ),
    (
        44,
        "partner_oauth_clients",
        include_str!("../../migrations/postgres/0044_partner_oauth_clients.sql"),
    ),
    (
        45,
        "sandbox_epoch",
        include_str!("../../migrations/postgres/0045_sandbox_epoch.sql"),
    ),
    (
        47,
        "sealed_sandbox_tokens",
        include_str!("../../migrations/postgres/0047_sealed_sandbox_tokens.sql"),
    ),
    (
        50,
        "partner_agreements",
        include_str!("../../migrations/postgres/0050_partner_agreements.sql"),
    ),
    (
        51,
        "sso_clients_epoch",
        include_str!("../../migrations/postgres/0051_sso_clients_epoch.sql"),
    ),
    (
        52,
        "bank_connections",
        include_str!("../../migrations/postgres/0052_bank_connections.sql"),
    ),
    (
        53,
        "double_entry_ledger",
        include_str!("../../migrations/postgres/0053_double_entry_ledger.sql"),
    ),
    (
        54,
        "rail_payments",
        include_str!("../../migrations/postgres/0054_rail_payments.sql"),
    ),
    (
        55,
        "reconciliation",
        include_str!("../../migrations/postgres/0055_reconciliation.sql"),
    ),
    (
        56,
        "payouts_on_the_rail",
        include_str!("../../migrations/postgres/0056_payouts_on_the_rail.sql"),
    ),
    (
        57,
        "operator_sessions",
        include_str!("../../migrations/postgres/0057_operator_sessions.sql"),
    ),
    (
        58,
        "ledger_loans",
        include_str!("../../migrations/postgres/0058_ledger_loans.sql"),
    ),
    (
        59,
        "partner_payout_accounts",
        include_str!("../../migrations/postgres/0059_partner_payout_accounts.sql"),
    ),
    (
        60,
        "credit_models",
        include_str!("../../migrations/postgres/0060_credit_models.sql"),
    ),
    (
        61,
        "model_monitoring",
        include_str!("../../migrations/postgres/0061_model_monitoring.sql"),
    ),
    (
        62,
        "signed_agreements",
        include_str!("../../migrations/postgres/0062_signed_agreements.sql"),
    ),
    (
        63,
        "partner_branding",
        include_str!("../../migrations/postgres/0063_partner_branding.sql"),
    ),
    (
        64,
        "application_search",
        include_str!("../../migrations/postgres/0064_application_search.sql"),
    ),
];

/// Any fixed number works; this one spells "lendhub" in ASCII.
const MIGRATION_LOCK: i64 = 0x006c_656e_6468_7562;

/// Applies pending migrations; returns how many ran.
pub async fn migrate(client: &mut Client) -> Result<usize, StoreError> {
    let tx = client.transaction().await.map_err(db)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(db)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version       BIGINT PRIMARY KEY,
             name          TEXT NOT NULL,
             applied_at_ms BIGINT NOT NULL
         )",
    )
    .await
    .map_err(db)?;
    let applied: Vec<i64> = tx
        .query("SELECT version FROM schema_migrations", &[])
        .await
        .map_err(db)?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()
        .map_err(db)?;
    // Versions may leave gaps (a number reserved for work merged later), so
    // compare with the newest version known, not with how many there are.
    let known = MIGRATIONS.iter().map(|(v, _, _)| *v).max().unwrap_or(0);
    if let Some(newest) = applied.iter().max()
        && *newest > known
    {
        tracing::warn!(
            database = newest,
            binary = known,
            "the database schema is newer than this binary; run the newer release"
        );
    }
    let mut ran = 0;
    for (version, name, sql) in MIGRATIONS {
        if applied.contains(version) {
            continue;
        }
        tx.batch_execute(sql).await.map_err(db)?;
        let now = lendhub_domain::clock::unix_ms(time::OffsetDateTime::now_utc());
        tx.execute(
            crate::sql::migrations::SCHEMA_MIGRATIONS_INSERT,
            &[version, name, &now],
        )
        .await
        .map_err(db)?;
        ran += 1;
    }
    tx.commit().await.map_err(db)?;
    Ok(ran)
}
