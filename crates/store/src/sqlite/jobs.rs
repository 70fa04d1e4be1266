//! The job queues on SQLite: webhook deliveries and mail, leased the same way.

use async_trait::async_trait;
use lendhub_domain::sandbox::ids::PublishedId;
use rusqlite::{Connection, params};

use super::{SqliteStore, rows, unavailable};
use crate::error::StoreError;
use crate::*;
use lendhub_domain::clock::from_unix_ms;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint::Delivery;

/// Leases up to `limit` due deliveries to enabled endpoints. Due times are on
/// the owner's clock, so each is compared with the service clock plus its
/// owner's offset. A lease that has lapsed (its worker died) makes the
/// delivery claimable again.
pub fn claim_deliveries(c: &Connection, q: &Lease) -> rusqlite::Result<Vec<ClaimedDelivery>> {
    let claimed: Vec<ClaimedDelivery> = c
        .prepare_cached(
            "SELECT d.id, d.event_id, d.endpoint_id, d.owner, d.attempt, d.first_due_ms, d.due_ms, w.body, w.sealed_secret, e.body,
                    coalesce(c.clock_offset_ms, 0), w.failing_since_ms,
                    CASE WHEN w.previous_secret_expires_at_ms > ?2 THEN w.previous_sealed_secret END
             FROM deliveries d
             JOIN webhook_endpoints w ON w.id = d.endpoint_id
             JOIN events e ON e.id = d.event_id
             LEFT JOIN test_clocks c ON c.owner = d.owner
             WHERE d.state = 'pending' AND d.due_ms - coalesce(c.clock_offset_ms, 0) <= ?1
               AND d.due_ms <= ?1 + (SELECT coalesce(max(clock_offset_ms), 0) FROM test_clocks) -- offsets are never negative: this bound lets the due-time index narrow the scan
               AND (d.lease_until_ms IS NULL OR d.lease_until_ms < ?2)
               AND w.status = 'enabled'
             ORDER BY d.due_ms, d.id -- index order: a page of the backlog, never a sort of all of it
             LIMIT ?3",
        )?
        .query_map(params![q.due_before_ms, q.real_now_ms, q.limit], |r| {
            let endpoint: String = r.get(7)?;
            let endpoint: lendhub_domain::webhooks::endpoint::WebhookEndpoint = rows::from_json(&endpoint)?;
            Ok(ClaimedDelivery {
                delivery: Delivery {
                    id: r.get(0)?,
                    event_id: PublishedId::from_stored(r.get(1)?),
                    endpoint_id: PublishedId::from_stored(r.get(2)?),
                    owner: Tenant::from_stored(r.get(3)?),
                    attempt: r.get(4)?,
                    first_due: from_unix_ms(r.get(5)?),
                    due: from_unix_ms(r.get(6)?),
                },
                url: endpoint.url.clone(),
                sealed_secret: r.get(8)?,
                body: r.get(9)?,
                endpoint,
                clock_offset_ms: r.get(10)?,
                failing_since_ms: r.get(11)?,
                previous_sealed_secret: r.get(12)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let mut lease = c.prepare_cached(
        "UPDATE deliveries SET lease_until_ms = ?2, lease_holder = ?3 WHERE id = ?1",
    )?;
    for d in &claimed {
        lease.execute(params![d.delivery.id, q.lease_until_ms, q.holder])?;
    }
    Ok(claimed)
}

pub fn finish_delivery(c: &Connection, result: &DeliveryResult) -> rusqlite::Result<()> {
    let (id, day, metric) = result.counted();
    c.prepare_cached(shared!(crate::sql::dashboard::COUNT_DELIVERY))?
        .execute(params![id, day, metric])?;
    match result {
        DeliveryResult::Delivered {
            id,
            status,
            heard,
            at_ms,
            ends_failures,
        } => {
            c.prepare_cached(shared!(crate::sql::jobs::DELIVERY_DELIVERED))?
                .execute(params![id, status, at_ms, heard.latency_ms, heard.excerpt])?;
            if *ends_failures {
                c.prepare_cached(shared!(crate::sql::jobs::ENDPOINT_ANSWERED))?
                    .execute([id])?;
            }
        }
        DeliveryResult::Failed {
            id,
            status,
            heard,
            error,
            retry_at_ms: Some(retry),
            at_ms,
        } => {
            c.prepare_cached(shared!(crate::sql::jobs::DELIVERY_RETRY))?
                .execute(params![
                    id,
                    status,
                    error,
                    retry,
                    at_ms,
                    heard.latency_ms,
                    heard.excerpt
                ])?;
            c.prepare_cached(shared!(crate::sql::jobs::ENDPOINT_FAILED))?
                .execute(params![id, at_ms])?;
        }
        DeliveryResult::Failed {
            id,
            status,
            heard,
            error,
            retry_at_ms: None,
            at_ms,
        } => {
            c.prepare_cached(shared!(crate::sql::jobs::DELIVERY_GIVEN_UP))?
                .execute(params![
                    id,
                    status,
                    error,
                    at_ms,
                    heard.latency_ms,
                    heard.excerpt
                ])?;
            c.prepare_cached(shared!(crate::sql::jobs::ENDPOINT_FAILED))?
                .execute(params![id, at_ms])?;
        }
    }
    Ok(())
}

fn claim_mail(c: &Connection, q: &Lease) -> rusqlite::Result<Vec<ClaimedMail>> {
    c.prepare_cached(
        "UPDATE mail_outbox SET lease_until_ms = ?3, lease_holder = ?5
         WHERE id IN (SELECT id FROM mail_outbox
                      WHERE state = 'pending' AND due_ms <= ?1
                        AND (lease_until_ms IS NULL OR lease_until_ms < ?2)
                      ORDER BY due_ms, id LIMIT ?4)
         RETURNING id, enquiry_id, recipient, subject, body, due_ms, attempts, first_due_ms",
    )?
    .query_map(
        params![
            q.due_before_ms,
            q.real_now_ms,
            q.lease_until_ms,
            q.limit,
            q.holder
        ],
        |r| {
            Ok(ClaimedMail {
                mail: MailRecord {
                    id: r.get(0)?,
                    enquiry_id: r.get(1)?,
                    recipient: r.get(2)?,
                    subject: r.get(3)?,
                    body: r.get(4)?,
                    due_ms: r.get(5)?,
                },
                attempts: r.get(6)?,
                first_due_ms: r.get(7)?,
            })
        },
    )?
    .collect()
}

fn finish_mail(c: &Connection, result: &MailResult) -> rusqlite::Result<()> {
    match result {
        MailResult::Sent { id, at_ms } => c
            .prepare_cached(
                shared!(crate::sql::jobs::MAIL_SENT),
            )?
            .execute(params![id, at_ms])?,
        MailResult::Failed {
            id,
            error,
            retry_at_ms,
        } => c
            .prepare_cached(
                "UPDATE mail_outbox SET attempts = attempts + 1, last_error = ?2, lease_until_ms = NULL, lease_holder = NULL,
                        state = CASE WHEN ?3 IS NULL THEN 'failed' ELSE 'pending' END,
                        due_ms = COALESCE(?3, due_ms)
                 WHERE id = ?1 AND state = 'pending'",
            )?
            .execute(params![id, error, retry_at_ms])?,
    };
    Ok(())
}

/// Gives back `holder`'s leases in `queue`.
fn release_leases(c: &Connection, queue: JobQueue, holder: &str) -> rusqlite::Result<u64> {
    let table = queue.table();
    let released = c
        .prepare_cached(&format!(
            "UPDATE {table} SET lease_until_ms = NULL, lease_holder = NULL
             WHERE state = 'pending' AND lease_holder = ?1"
        ))?
        .execute([holder])?;
    Ok(released as u64)
}

#[async_trait]
impl JobStore for SqliteStore {
    async fn claim_deliveries(&self, lease: &Lease) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let lease = lease.clone();
        self.writer
            .run(move |c| claim_deliveries(c, &lease).map_err(unavailable))
            .await
    }

    async fn finish_delivery(&self, result: DeliveryResult) -> Result<(), StoreError> {
        self.writer
            .run(move |c| finish_delivery(c, &result).map_err(unavailable))
            .await
    }

    async fn claim_mail(&self, lease: &Lease) -> Result<Vec<ClaimedMail>, StoreError> {
        let lease = lease.clone();
        self.writer
            .run(move |c| claim_mail(c, &lease).map_err(unavailable))
            .await
    }

    async fn finish_mail(&self, result: MailResult) -> Result<(), StoreError> {
        self.writer
            .run(move |c| finish_mail(c, &result).map_err(unavailable))
            .await
    }

    async fn release_leases(&self, queue: JobQueue, holder: &str) -> Result<u64, StoreError> {
        let holder = holder.to_owned();
        self.writer
            .run(move |c| release_leases(c, queue, &holder).map_err(unavailable))
            .await
    }

    async fn endpoint_deliveries(
        &self,
        owner: &Tenant,
        endpoint_id: &PublishedId,
        limit: u32,
    ) -> Result<Vec<DeliveryView>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(crate::sql::jobs::ENDPOINT_DELIVERIES))?
                .query_map(params![endpoint_id.as_str(), owner.as_str(), limit], |r| {
                    Ok(DeliveryView {
                        id: r.get(0)?,
                        event_id: r.get(1)?,
                        event_type: r.get(2)?,
                        state: r.get(3)?,
                        attempt: r.get(4)?,
                        last_status: r.get(5)?,
                        last_error: r.get(6)?,
                        updated_at_ms: r.get(7)?,
                        last_latency_ms: r.get(8)?,
                        last_response: r.get(9)?,
                    })
                })?
                .collect()
        })
    }
}
