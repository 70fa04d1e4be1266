//! Writes on SQLite: the unit of work (each context's variants in a module
//! of its own) and the few direct writes of administrative commands.

mod commercial;
mod events;
mod lending;
mod sandbox;

use rusqlite::{Connection, params};

use super::{dialect, unavailable};
use crate::error::CommitError;
use crate::sql;
use crate::*;

pub fn insert_client(c: &Connection, client: &ClientRecord) -> rusqlite::Result<()> {
    c.execute(
        shared!(crate::sql::sandbox::SANDBOX_CLIENTS_INSERT),
        params![
            client.client_id,
            client.name,
            client.secret_hash,
            client.scopes,
            client.created_at_ms
        ],
    )?;
    Ok(())
}

pub fn bind_setting(c: &Connection, name: &str, value: &[u8]) -> rusqlite::Result<Vec<u8>> {
    c.execute(
        shared!(crate::sql::sandbox::SETTINGS_INSERT),
        params![name, value],
    )?;
    c.query_row(
        shared!(crate::sql::sandbox::SETTINGS_SELECT_BY_NAME),
        [name],
        |r| r.get(0),
    )
}

pub fn revoke_client(c: &Connection, client_id: &str, now_ms: i64) -> rusqlite::Result<bool> {
    let changed = c.execute(
        shared!(crate::sql::sandbox::REVOKE_SANDBOX_CLIENT),
        params![client_id, now_ms],
    )?;
    Ok(changed > 0)
}

pub fn prune(c: &Connection, r: &Retention) -> rusqlite::Result<u64> {
    let (idempotency_before_ms, tokens_expired_before_ms) =
        (r.idempotency_before_ms, r.tokens_expired_before_ms);
    let keys = c.execute(&dialect(sql::PRUNE_IDEMPOTENCY), [idempotency_before_ms])?
        + c.execute(
        "DELETE FROM idempotency_keys WHERE owner IN (SELECT owner FROM test_clocks WHERE clock_offset_ms > 0)
           AND created_at_ms - (SELECT clock_offset_ms FROM test_clocks WHERE owner = idempotency_keys.owner) < ?1",
        [idempotency_before_ms],
    )?;
    let revocations = c.execute(&dialect(sql::PRUNE_REVOCATIONS), [tokens_expired_before_ms])?;
    let events = c.execute(&dialect(sql::PRUNE_EVENTS), [r.events_before_ms])?
        + c.execute(&dialect(sql::PRUNE_EVENTS_AHEAD), [r.events_before_ms])?
        + c.execute(&dialect(sql::PRUNE_DELIVERIES), [r.events_before_ms])?;
    Ok((keys + revocations + events) as u64)
}

pub fn apply(c: &Connection, set: &WriteSet) -> Result<(), CommitError> {
    if let Some(record) = &set.idempotency {
        insert_idempotency(c, record)?;
    }
    for write in &set.writes {
        match write {
            Write::Sandbox(w) => sandbox::apply(c, w)?,
            Write::Events(w) => events::apply(c, w)?,
            Write::Lending(w) => lending::apply(c, w)?,
            Write::Commercial(w) => commercial::apply(c, w)?,
            Write::Access(w) => {
                super::partner::apply_access(c, w).map_err(|e| CommitError::from(unavailable(e)))?
            }
            Write::Staff(w) => super::dashboard::apply_staff(c, w)
                .map_err(|e| CommitError::from(unavailable(e)))?,
            Write::Audit(a) => {
                c.prepare_cached(shared!(crate::sql::dashboard::INSERT_AUDIT))
                    .and_then(|mut s| {
                        s.execute(params![
                            a.id,
                            a.partner_client_id,
                            a.user_id,
                            a.email,
                            a.action,
                            a.target,
                            a.environment,
                            a.at_ms
                        ])
                    })
                    .map_err(|e| CommitError::from(unavailable(e)))?;
            }
            Write::Public(PublicWrite::InsertEnquiry { enquiry, mail }) => {
                super::public::insert_enquiry(c, enquiry, mail)
                    .map_err(|e| CommitError::from(unavailable(e)))?
            }
            Write::Public(PublicWrite::MailPartner {
                id,
                client_id,
                subject,
                body,
                due_ms,
            }) => {
                c.prepare_cached(shared!(crate::sql::events::MAIL_PARTNER))
                    .and_then(|mut s| s.execute(params![id, client_id, subject, body, due_ms]))
                    .map_err(|e| CommitError::from(unavailable(e)))?;
            }
        }
    }
    Ok(())
}

pub(super) fn is_unique_violation(e: &rusqlite::Error) -> bool {
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
            s.execute(params![r.owner.as_str(), r.key, &r.fingerprint[..], r.status, r.body, r.created_at_ms, retention_ms])
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
