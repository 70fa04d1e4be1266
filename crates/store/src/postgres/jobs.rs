//! The job queues on PostgreSQL: webhook deliveries and mail, leased the same way.

use deadpool_postgres::ClientWrapper as Client;
use lendhub_domain::sandbox::ids::PublishedId;
use tokio_postgres::types::ToSql;

use super::errors::db;
use super::reads::{from_json, get};
use crate::error::StoreError;
use crate::*;
use lendhub_domain::clock::{from_unix_ms, unix_ms};
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint::{Delivery, WebhookEndpoint};

/// Leases up to `limit` due deliveries to enabled endpoints, in one statement.
/// `SKIP LOCKED` lets every instance's worker claim at once without waiting
/// on or double-claiming each other's rows; a lease that has lapsed (its
/// worker died) makes a delivery claimable again.
///
/// Due times are on the owner's clock, so each is compared with the service
/// clock (`$1`) plus its owner's offset. The rows come in the order of the
/// pending index (`due_ms, id`), so a claim reads one page of a backlog:
/// ordering by the owner-adjusted due time sorted every due row on each
/// claim, which made draining a backlog quadratic (docs/benchmarks-history.md).
const CLAIM: &str = "WITH due AS (
        SELECT d.id, coalesce(c.clock_offset_ms, 0) AS clock_offset_ms FROM deliveries d
        JOIN webhook_endpoints w ON w.id = d.endpoint_id
        LEFT JOIN test_clocks c ON c.owner = d.owner
        WHERE d.state = 'pending' AND d.due_ms - coalesce(c.clock_offset_ms, 0) <= $1
               AND d.due_ms <= $1 + (SELECT coalesce(max(clock_offset_ms), 0) FROM test_clocks) -- offsets are never negative: this bound lets the due-time index narrow the scan
          AND (d.lease_until_ms IS NULL OR d.lease_until_ms < $2)
          AND w.status = 'enabled'
        ORDER BY d.due_ms, d.id -- index order: a page of the backlog, never a sort of all of it
        LIMIT $3
        FOR UPDATE OF d SKIP LOCKED)
    UPDATE deliveries d SET lease_until_ms = $4, lease_holder = $5
    FROM due, webhook_endpoints w, events e
    WHERE d.id = due.id AND w.id = d.endpoint_id AND e.id = d.event_id
    RETURNING d.id, d.event_id, d.endpoint_id, d.owner, d.attempt, d.first_due_ms, d.due_ms,
              w.body, w.sealed_secret, e.body, due.clock_offset_ms, w.failing_since_ms,
              CASE WHEN w.previous_secret_expires_at_ms > $2 THEN w.previous_sealed_secret END";

pub async fn claim_deliveries(c: &Client, q: &Lease) -> Result<Vec<ClaimedDelivery>, StoreError> {
    let statement = c.prepare_cached(CLAIM).await.map_err(db)?;
    let limit = i64::from(q.limit);
    let rows = c
        .query(
            &statement,
            &[
                &q.due_before_ms,
                &q.real_now_ms,
                &limit,
                &q.lease_until_ms,
                &q.holder,
            ],
        )
        .await
        .map_err(db)?;
    let mut claimed: Vec<ClaimedDelivery> = rows
        .iter()
        .map(|r| {
            let endpoint: WebhookEndpoint = from_json(get(r, 7)?)?;
            Ok(ClaimedDelivery {
                delivery: Delivery {
                    id: get(r, 0)?,
                    event_id: PublishedId::from_stored(get(r, 1)?),
                    endpoint_id: PublishedId::from_stored(get(r, 2)?),
                    owner: Tenant::from_stored(get(r, 3)?),
                    attempt: u32::try_from(get::<i32>(r, 4)?).unwrap_or(0),
                    first_due: from_unix_ms(get(r, 5)?),
                    due: from_unix_ms(get(r, 6)?),
                },
                url: endpoint.url.clone(),
                sealed_secret: get(r, 8)?,
                body: get(r, 9)?,
                endpoint,
                clock_offset_ms: get(r, 10)?,
                failing_since_ms: get(r, 11)?,
                previous_sealed_secret: get(r, 12)?,
            })
        })
        .collect::<Result<_, StoreError>>()?;
    // RETURNING does not keep the CTE's order.
    claimed.sort_by_key(|d| (unix_ms(d.delivery.due) - d.clock_offset_ms, d.delivery.id));
    Ok(claimed)
}

pub async fn finish_delivery(c: &Client, result: &DeliveryResult) -> Result<(), StoreError> {
    let (id, day, metric) = result.counted();
    execute(
        c,
        crate::sql::dashboard::COUNT_DELIVERY,
        &[&id, &day, &metric],
    )
    .await?;
    // INTEGER columns: postgres-types has no u16.
    let status = |s: &Option<u16>| s.map(i32::from);
    match result {
        DeliveryResult::Delivered {
            id,
            status,
            heard,
            at_ms,
            ends_failures,
        } => {
            let status = i32::from(*status);
            execute(
                c,
                crate::sql::jobs::DELIVERY_DELIVERED,
                &[id, &status, at_ms, &heard.latency_ms, &heard.excerpt],
            )
            .await?;
            if *ends_failures {
                execute(c, crate::sql::jobs::ENDPOINT_ANSWERED, &[id]).await
            } else {
                Ok(())
            }
        }
        DeliveryResult::Failed {
            id,
            status: code,
            heard,
            error,
            retry_at_ms: Some(retry),
            at_ms,
        } => {
            execute(
                c,
                crate::sql::jobs::DELIVERY_RETRY,
                &[
                    id,
                    &status(code),
                    error,
                    retry,
                    at_ms,
                    &heard.latency_ms,
                    &heard.excerpt,
                ],
            )
            .await?;
            execute(c, crate::sql::jobs::ENDPOINT_FAILED, &[id, at_ms]).await
        }
        DeliveryResult::Failed {
            id,
            status: code,
            heard,
            error,
            retry_at_ms: None,
            at_ms,
        } => {
            execute(
                c,
                crate::sql::jobs::DELIVERY_GIVEN_UP,
                &[
                    id,
                    &status(code),
                    error,
                    at_ms,
                    &heard.latency_ms,
                    &heard.excerpt,
                ],
            )
            .await?;
            execute(c, crate::sql::jobs::ENDPOINT_FAILED, &[id, at_ms]).await
        }
    }
}

pub async fn claim_mail(c: &Client, q: &Lease) -> Result<Vec<ClaimedMail>, StoreError> {
    let limit = i64::from(q.limit);
    let rows = c
        .query(
            "UPDATE mail_outbox SET lease_until_ms = $3, lease_holder = $5
             WHERE id IN (SELECT id FROM mail_outbox
                          WHERE state = 'pending' AND due_ms <= $1
                            AND (lease_until_ms IS NULL OR lease_until_ms < $2)
                          ORDER BY due_ms, id LIMIT $4
                          FOR UPDATE SKIP LOCKED)
             RETURNING id, enquiry_id, recipient, subject, body, due_ms, attempts, first_due_ms",
            &[
                &q.due_before_ms,
                &q.real_now_ms,
                &q.lease_until_ms,
                &limit,
                &q.holder,
            ],
        )
        .await
        .map_err(db)?;
    rows.iter()
        .map(|r| {
            let attempts: i32 = get(r, 6)?;
            Ok(ClaimedMail {
                mail: MailRecord {
                    id: get(r, 0)?,
                    enquiry_id: get(r, 1)?,
                    recipient: get(r, 2)?,
                    subject: get(r, 3)?,
                    body: get(r, 4)?,
                    due_ms: get(r, 5)?,
                },
                attempts: u32::try_from(attempts).unwrap_or(0),
                first_due_ms: get(r, 7)?,
            })
        })
        .collect()
}

pub async fn finish_mail(c: &Client, result: &MailResult) -> Result<(), StoreError> {
    match result {
        MailResult::Sent { id, at_ms } => c
            .execute(
                crate::sql::jobs::MAIL_SENT,
                &[id, at_ms],
            )
            .await
            .map_err(db)?,
        MailResult::Failed {
            id,
            error,
            retry_at_ms,
        } => c
            .execute(
                "UPDATE mail_outbox SET attempts = attempts + 1, last_error = $2, lease_until_ms = NULL, lease_holder = NULL,
                        state = CASE WHEN $3::BIGINT IS NULL THEN 'failed' ELSE 'pending' END,
                        due_ms = COALESCE($3::BIGINT, due_ms)
                 WHERE id = $1 AND state = 'pending'",
                &[id, error, retry_at_ms],
            )
            .await
            .map_err(db)?,
    };
    Ok(())
}

/// Gives back `holder`'s leases in `queue`.
pub async fn release_leases(c: &Client, queue: JobQueue, holder: &str) -> Result<u64, StoreError> {
    let table = queue.table();
    let statement = c
        .prepare_cached(&format!(
            "UPDATE {table} SET lease_until_ms = NULL, lease_holder = NULL
             WHERE state = 'pending' AND lease_holder = $1"
        ))
        .await
        .map_err(db)?;
    c.execute(&statement, &[&holder]).await.map_err(db)
}

async fn execute(c: &Client, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<(), StoreError> {
    let statement = c.prepare_cached(sql).await.map_err(db)?;
    c.execute(&statement, params).await.map_err(db)?;
    Ok(())
}
