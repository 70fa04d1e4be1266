use rusqlite::{Connection, params};

use super::{rows, unavailable};
use crate::error::CommitError;
use crate::model::*;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::events::{Event, subscribed};
use lendhub_domain::webhook::EndpointStatus;

pub fn insert_client(c: &Connection, client: &ClientRecord) -> rusqlite::Result<()> {
    c.execute(
        "INSERT INTO sandbox_clients (client_id, name, secret_hash, scopes, status, created_at_ms) VALUES (?1, ?2, ?3, ?4, 'active', ?5)",
        params![client.client_id, client.name, client.secret_hash, client.scopes, client.created_at_ms],
    )?;
    Ok(())
}

pub fn bind_setting(c: &Connection, name: &str, value: &[u8]) -> rusqlite::Result<Vec<u8>> {
    c.execute(
        "INSERT INTO settings (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING",
        params![name, value],
    )?;
    c.query_row("SELECT value FROM settings WHERE name = ?1", [name], |r| {
        r.get(0)
    })
}

pub fn revoke_client(c: &Connection, client_id: &str, now_ms: i64) -> rusqlite::Result<bool> {
    let changed = c.execute(
        "UPDATE sandbox_clients SET status = 'revoked', revoked_at_ms = ?2 WHERE client_id = ?1 AND status = 'active'",
        params![client_id, now_ms],
    )?;
    c.execute(
        "DELETE FROM sandbox_tokens WHERE client_id = ?1",
        [client_id],
    )?;
    Ok(changed > 0)
}

pub fn prune(
    c: &Connection,
    idempotency_before_ms: i64,
    tokens_expired_before_ms: i64,
) -> rusqlite::Result<u64> {
    // Clock offsets are never negative: a record past the service clock's
    // cut-off has expired for every owner (a range of the created index).
    // Owners whose clocks run ahead expire theirs sooner.
    let keys = c.execute(
        "DELETE FROM idempotency_keys WHERE created_at_ms < ?1",
        [idempotency_before_ms],
    )? + c.execute(
        "DELETE FROM idempotency_keys WHERE owner IN (SELECT client_id FROM sandbox_clients WHERE clock_offset_ms > 0)
           AND created_at_ms - (SELECT clock_offset_ms FROM sandbox_clients WHERE client_id = idempotency_keys.owner) < ?1",
        [idempotency_before_ms],
    )?;
    let tokens = c.execute(
        "DELETE FROM sandbox_tokens WHERE expires_at_ms < ?1",
        [tokens_expired_before_ms],
    )?;
    let revocations = c.execute(
        "DELETE FROM revoked_tokens WHERE expires_at_ms < ?1",
        [tokens_expired_before_ms],
    )?;
    Ok((keys + tokens + revocations) as u64)
}

pub fn apply(c: &Connection, set: &WriteSet) -> Result<(), CommitError> {
    if let Some(record) = &set.idempotency {
        insert_idempotency(c, record)?;
    }
    for write in &set.writes {
        apply_one(c, write)?;
    }
    Ok(())
}

fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
}

/// Records the key, replacing a record that has expired on the owner's clock;
/// a live record under the key fails the set.
fn insert_idempotency(c: &Connection, r: &IdempotencyRecord) -> Result<(), CommitError> {
    let retention_ms = lendhub_domain::idempotency::RETENTION.whole_milliseconds() as i64;
    let stored = c
        .prepare_cached(
            "INSERT INTO idempotency_keys (owner, key, fingerprint, status, body, created_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (owner, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
                 body = excluded.body, created_at_ms = excluded.created_at_ms
             WHERE idempotency_keys.created_at_ms <= excluded.created_at_ms - ?7",
        )
        .and_then(|mut s| {
            s.execute(params![r.owner, r.key, &r.fingerprint[..], r.status, r.body, r.created_at_ms, retention_ms])
        })
        .map_err(|e| {
            if is_unique_violation(&e) {
                CommitError::IdempotencyKeyTaken
            } else {
                unavailable(e).into()
            }
        })?;
    if stored == 0 {
        return Err(CommitError::IdempotencyKeyTaken);
    }
    Ok(())
}

fn apply_one(c: &Connection, write: &Write) -> Result<(), CommitError> {
    let store = |e: rusqlite::Error| CommitError::from(unavailable(e));
    match write {
        Write::InsertApplication(ApplicationRecord {
            application: app,
            rendered,
        }) => {
            c.prepare_cached(
                "INSERT INTO applications (id, owner, status, version, created_at_ms, body, rendered, review_due_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .and_then(|mut s| {
                let body = rows::to_json(app)?;
                let review_due = app.review_due_at().map(unix_ms);
                s.execute(params![app.id.as_str(), app.owner, app.status.as_str(), app.version, unix_ms(app.created_at), body, rendered, review_due])
            })
            .map_err(store)?;
        }
        Write::UpdateApplication(ApplicationRecord {
            application: app,
            rendered,
        }) => {
            let changed = c
                .prepare_cached(
                    "UPDATE applications SET status = ?3, version = ?4, body = ?5, rendered = ?6, review_due_ms = ?7
                     WHERE id = ?1 AND owner = ?2 AND version = ?4 - 1",
                )
                .and_then(|mut s| {
                    let body = rows::to_json(app)?;
                    s.execute(params![
                        app.id.as_str(),
                        app.owner,
                        app.status.as_str(),
                        app.version,
                        body,
                        rendered,
                        app.review_due_at().map(unix_ms)
                    ])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        Write::InsertPayment(p) => {
            c.prepare_cached("INSERT INTO payments (id, owner, application_id, created_at_ms, body) VALUES (?1, ?2, ?3, ?4, ?5)")
                .and_then(|mut s| s.execute(params![p.id.as_str(), p.owner, p.application_id.as_str(), unix_ms(p.created_at), rows::to_json(p)?]))
                .map_err(store)?;
        }
        Write::InsertEndpoint(r) => {
            let e = &r.endpoint;
            let status = e.status.as_str();
            c.prepare_cached("INSERT INTO webhook_endpoints (id, owner, status, sealed_secret, created_at_ms, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
                .and_then(|mut s| s.execute(params![e.id.as_str(), e.owner, status, r.sealed_secret, unix_ms(e.created_at), rows::to_json(e)?]))
                .map_err(store)?;
        }
        Write::InsertEvent(event) => insert_event(c, event).map_err(store)?,
        Write::InsertToken(t) => {
            // Conditional on the client, so a revocation committed anywhere wins.
            let inserted = c
                .prepare_cached(
                    "INSERT INTO sandbox_tokens (selector, verifier_hash, client_id, scopes, expires_at_ms, created_at_ms)
                     SELECT ?1, ?2, ?3, ?4, ?5, ?6
                     WHERE EXISTS (SELECT 1 FROM sandbox_clients WHERE client_id = ?3 AND status = 'active')",
                )
                .and_then(|mut s| {
                    s.execute(params![&t.selector[..], &t.verifier_hash[..], t.client_id, t.scopes, t.expires_at_ms, t.created_at_ms])
                })
                .map_err(store)?;
            if inserted == 0 {
                return Err(CommitError::Conflict);
            }
        }
        Write::SetClock {
            owner,
            from_offset_ms,
            to_offset_ms,
        } => {
            let changed = c
                .prepare_cached(
                    "UPDATE sandbox_clients SET clock_offset_ms = ?3 WHERE client_id = ?1 AND clock_offset_ms = ?2",
                )
                .and_then(|mut s| s.execute(params![owner, from_offset_ms, to_offset_ms]))
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
        }
        Write::SetEndpointStatus { endpoint: e, from } => {
            let changed = c
                .prepare_cached(
                    "UPDATE webhook_endpoints SET status = ?4, body = ?5 WHERE id = ?1 AND owner = ?2 AND status = ?3",
                )
                .and_then(|mut s| {
                    let body = rows::to_json(e)?;
                    s.execute(params![e.id.as_str(), e.owner, from.as_str(), e.status.as_str(), body])
                })
                .map_err(store)?;
            if changed == 0 {
                return Err(CommitError::Conflict);
            }
            if e.status == EndpointStatus::Disabled {
                c.prepare_cached(
                    "UPDATE deliveries SET state = 'failed', last_error = 'endpoint disabled', lease_until_ms = NULL
                     WHERE endpoint_id = ?1 AND state = 'pending'",
                )
                .and_then(|mut s| s.execute([e.id.as_str()]))
                .map_err(store)?;
            }
        }
        Write::ResetOwner { owner, keep_key } => {
            reset(c, owner, keep_key.as_deref()).map_err(store)?
        }
    }
    Ok(())
}

/// Everything the owner has in the sandbox goes, in one savepoint with the
/// reset's own idempotency record; its clock goes back to zero.
fn reset(c: &Connection, owner: &str, keep_key: Option<&str>) -> rusqlite::Result<()> {
    for table in [
        "deliveries",
        "payments",
        "applications",
        "events",
        "webhook_endpoints",
    ] {
        c.prepare_cached(&format!("DELETE FROM {table} WHERE owner = ?1"))?
            .execute([owner])?;
    }
    c.prepare_cached("DELETE FROM idempotency_keys WHERE owner = ?1 AND key IS NOT ?2")?
        .execute(params![owner, keep_key])?;
    c.prepare_cached("UPDATE sandbox_clients SET clock_offset_ms = 0 WHERE client_id = ?1")?
        .execute([owner])?;
    Ok(())
}

/// The event and its outbox rows commit together: an event is never stored
/// without the deliveries it owes.
fn insert_event(c: &Connection, event: &Event) -> rusqlite::Result<()> {
    let at = unix_ms(event.created_at);
    let kind = event.event_type.as_str();
    c.prepare_cached(
        "INSERT INTO events (id, owner, type, created_at_ms, body) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        event.id.as_str(),
        event.owner,
        kind,
        at,
        event.body
    ])?;
    let targets: Vec<(String, String)> = c
        .prepare_cached(
            "SELECT id, body FROM webhook_endpoints WHERE owner = ?1 AND status = 'enabled'",
        )?
        .query_map([&event.owner], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut insert = c.prepare_cached(
        "INSERT INTO deliveries (event_id, endpoint_id, owner, state, attempt, first_due_ms, due_ms, updated_at_ms)
         VALUES (?1, ?2, ?3, 'pending', 1, ?4, ?4, ?4)",
    )?;
    for (endpoint_id, body) in targets {
        let endpoint: lendhub_domain::webhook::WebhookEndpoint = rows::from_json(&body)?;
        if subscribed(&endpoint.enabled_events, kind) {
            insert.execute(params![event.id.as_str(), endpoint_id, event.owner, at])?;
        }
    }
    Ok(())
}
