//! The events context's writes: webhook endpoints (slots at rank 19, the
//! endpoints at 20) and deliveries. Events themselves are stored by each
//! backend (`super`).

use lendhub_domain::clock::unix_ms;
use lendhub_domain::webhooks::endpoint::EndpointStatus;

use super::{Check, Unit, json, read_check};
use crate::error::StoreError;
use crate::exec::{Dialect, Lock, Statement};
use crate::sql::events as sql;
use crate::*;

/// The endpoint, still with the status the change was computed from.
const ENDPOINT_IN: Lock =
    lock!("SELECT 1 FROM webhook_endpoints WHERE id = $1 AND owner = $2 AND status = $3");
/// The endpoint, still there.
const ENDPOINT_EXISTS: Lock = lock!("SELECT 1 FROM webhook_endpoints WHERE id = $1 AND owner = $2");
/// The endpoint, still enabled and failing since the given moment or
/// earlier.
const ENDPOINT_FAILING: Lock = lock!(
    "SELECT 1 FROM webhook_endpoints
     WHERE id = $1 AND owner = $2 AND status = 'enabled' AND failing_since_ms <= $3"
);
/// Once its check holds. A change of status starts the endpoint's health
/// afresh.
const SET_ENDPOINT_STATUS: &str = "UPDATE webhook_endpoints
     SET status = $3, body = $4, enabled_events = $5, failing_since_ms = NULL
     WHERE id = $1 AND owner = $2";

fn endpoint(rank_key: &str, test: Statement) -> Check {
    read_check(20, rank_key, Some("endpoint"), test)
}

pub(super) fn plan(write: &EventWrite, d: &Dialect, unit: &mut Unit) -> Result<(), StoreError> {
    match write {
        // Stored by the backend, with the deliveries it owes.
        EventWrite::InsertEvent(_) => {}
        // Slots are counted, not compared: two registrations in one batch
        // each take their own, so no row of the batch is claimed.
        EventWrite::InsertEndpoint {
            record,
            max_per_owner,
        } => {
            let e = &record.endpoint;
            unit.check(Check {
                rank: (19, e.owner.to_string(), String::new()),
                row: None,
                test: Statement::change(
                    sql::TAKE_ENDPOINT_SLOT,
                    values![e.owner.as_str(), i64::from(*max_per_owner)],
                ),
                release: Some(Statement::change(
                    sql::FREE_ENDPOINT_SLOT,
                    values![e.owner.as_str()],
                )),
            });
            unit.step(
                sql::WEBHOOK_ENDPOINTS_INSERT,
                values![
                    e.id.as_str(),
                    e.owner.as_str(),
                    e.status.as_str(),
                    e.enabled_events.clone(),
                    record.sealed_secret.clone(),
                    unix_ms(e.created_at),
                    json(e)?
                ],
            );
        }
        EventWrite::QueueDeliveries {
            event_id,
            owner,
            endpoint_ids,
            at_ms,
        } => {
            for endpoint_id in endpoint_ids {
                unit.step(
                    sql::QUEUE_DELIVERY,
                    values![
                        event_id.as_str(),
                        endpoint_id.as_str(),
                        owner.as_str(),
                        *at_ms
                    ],
                );
            }
        }
        EventWrite::UpdateEndpoint(e) => {
            unit.check(endpoint(
                e.id.as_str(),
                Statement::read(
                    d.lock(&ENDPOINT_EXISTS),
                    values![e.id.as_str(), e.owner.as_str()],
                ),
            ));
            unit.step(
                sql::UPDATE_ENDPOINT,
                values![
                    e.id.as_str(),
                    e.owner.as_str(),
                    e.enabled_events.clone(),
                    json(e)?
                ],
            );
        }
        EventWrite::DeleteEndpoint { id, owner } => {
            unit.check(endpoint(
                id,
                Statement::read(
                    d.lock(&ENDPOINT_EXISTS),
                    values![id.as_str(), owner.as_str()],
                ),
            ));
            unit.step(sql::DELETE_ENDPOINT, values![id.as_str(), owner.as_str()]);
            unit.step(sql::FREE_ENDPOINT_SLOT, values![owner.as_str()]);
            unit.step(
                sql::END_DELIVERIES_OF_DELETED_ENDPOINT,
                values![id.as_str()],
            );
        }
        EventWrite::RetryDelivery {
            id,
            owner,
            due_ms,
            at_ms,
        } => unit.step(
            crate::sql::jobs::RETRY_FAILED_DELIVERY,
            values![*id, owner.as_str(), *due_ms, *at_ms],
        ),
        EventWrite::RotateEndpointSecret {
            id,
            owner,
            sealed_secret,
            previous_expires_at_ms,
        } => {
            unit.check(endpoint(
                id,
                Statement::read(
                    d.lock(&ENDPOINT_EXISTS),
                    values![id.as_str(), owner.as_str()],
                ),
            ));
            unit.step(
                sql::ROTATE_ENDPOINT_SECRET,
                values![
                    id.as_str(),
                    owner.as_str(),
                    sealed_secret.clone(),
                    *previous_expires_at_ms
                ],
            );
        }
        EventWrite::SetEndpointStatus { endpoint: e, from } => {
            unit.check(endpoint(
                e.id.as_str(),
                Statement::read(
                    d.lock(&ENDPOINT_IN),
                    values![e.id.as_str(), e.owner.as_str(), from.as_str()],
                ),
            ));
            set_status(e, unit)?;
        }
        EventWrite::DisableFailingEndpoint {
            endpoint: e,
            failing_since_ms,
        } => {
            unit.check(endpoint(
                e.id.as_str(),
                Statement::read(
                    d.lock(&ENDPOINT_FAILING),
                    values![e.id.as_str(), e.owner.as_str(), *failing_since_ms],
                ),
            ));
            set_status(e, unit)?;
        }
    }
    Ok(())
}

/// The endpoint's new status; a disabled endpoint is not attempted, so its
/// pending deliveries end.
fn set_status(
    e: &lendhub_domain::webhooks::endpoint::WebhookEndpoint,
    unit: &mut Unit,
) -> Result<(), StoreError> {
    unit.step(
        SET_ENDPOINT_STATUS,
        values![
            e.id.as_str(),
            e.owner.as_str(),
            e.status.as_str(),
            json(e)?,
            e.enabled_events.clone()
        ],
    );
    if e.status == EndpointStatus::Disabled {
        unit.step(sql::END_DELIVERIES_OF_ENDPOINT, values![e.id.as_str()]);
    }
    Ok(())
}
