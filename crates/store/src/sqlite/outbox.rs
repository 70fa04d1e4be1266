use rusqlite::{Connection, params};

use super::rows;
use crate::model::*;
use lendhub_domain::clock::from_unix_ms;
use lendhub_domain::webhook::Delivery;

/// Leases up to `limit` due deliveries to enabled endpoints. Due times are on
/// the owner's clock, so each is compared with the service clock plus its
/// owner's offset. A lease that has lapsed (its worker died) makes the
/// delivery claimable again.
pub fn claim(c: &Connection, q: &DeliveryClaim) -> rusqlite::Result<Vec<ClaimedDelivery>> {
    let claimed: Vec<ClaimedDelivery> = c
        .prepare_cached(
            "SELECT d.id, d.event_id, d.endpoint_id, d.owner, d.attempt, d.first_due_ms, d.due_ms, w.body, w.sealed_secret, e.body,
                    coalesce(c.clock_offset_ms, 0)
             FROM deliveries d
             JOIN webhook_endpoints w ON w.id = d.endpoint_id
             JOIN events e ON e.id = d.event_id
             LEFT JOIN sandbox_clients c ON c.client_id = d.owner
             WHERE d.state = 'pending' AND d.due_ms - coalesce(c.clock_offset_ms, 0) <= ?1
               AND d.due_ms <= ?1 + (SELECT coalesce(max(clock_offset_ms), 0) FROM sandbox_clients) -- offsets are never negative: this bound lets the due-time index narrow the scan
               AND (d.lease_until_ms IS NULL OR d.lease_until_ms < ?2)
               AND w.status = 'enabled'
             ORDER BY d.due_ms - coalesce(c.clock_offset_ms, 0), d.id
             LIMIT ?3",
        )?
        .query_map(params![q.due_before_ms, q.real_now_ms, q.limit], |r| {
            let endpoint: String = r.get(7)?;
            let endpoint: lendhub_domain::webhook::WebhookEndpoint = rows::from_json(&endpoint)?;
            Ok(ClaimedDelivery {
                delivery: Delivery {
                    id: r.get(0)?,
                    event_id: rows::sandbox_id(r.get(1)?)?,
                    endpoint_id: rows::sandbox_id(r.get(2)?)?,
                    owner: r.get(3)?,
                    attempt: r.get(4)?,
                    first_due: from_unix_ms(r.get(5)?),
                    due: from_unix_ms(r.get(6)?),
                },
                url: endpoint.url.clone(),
                sealed_secret: r.get(8)?,
                body: r.get(9)?,
                endpoint,
                clock_offset_ms: r.get(10)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let mut lease = c.prepare_cached("UPDATE deliveries SET lease_until_ms = ?2 WHERE id = ?1")?;
    for d in &claimed {
        lease.execute(params![d.delivery.id, q.lease_until_ms])?;
    }
    Ok(claimed)
}

pub fn finish(c: &Connection, result: &DeliveryResult) -> rusqlite::Result<()> {
    match result {
        DeliveryResult::Delivered { id, status, at_ms } => {
            c.prepare_cached(
                "UPDATE deliveries SET state = 'delivered', last_status = ?2, last_error = NULL, lease_until_ms = NULL, updated_at_ms = ?3 WHERE id = ?1",
            )?
            .execute(params![id, status, at_ms])?;
        }
        DeliveryResult::Failed {
            id,
            status,
            error,
            retry_at_ms: Some(retry),
            at_ms,
        } => {
            c.prepare_cached(
                "UPDATE deliveries SET attempt = attempt + 1, due_ms = ?4, last_status = ?2, last_error = ?3, lease_until_ms = NULL, updated_at_ms = ?5 WHERE id = ?1",
            )?
            .execute(params![id, status, error, retry, at_ms])?;
        }
        DeliveryResult::Failed {
            id,
            status,
            error,
            retry_at_ms: None,
            at_ms,
        } => {
            c.prepare_cached(
                "UPDATE deliveries SET state = 'failed', last_status = ?2, last_error = ?3, lease_until_ms = NULL, updated_at_ms = ?4 WHERE id = ?1",
            )?
            .execute(params![id, status, error, at_ms])?;
        }
    }
    Ok(())
}
