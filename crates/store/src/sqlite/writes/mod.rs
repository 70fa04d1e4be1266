//! Writes on SQLite: the unit of work (each context's variants in a module
//! of its own) and retention's prune.

mod commercial;
mod events;
mod lending;
mod sandbox;
mod staff;

use rusqlite::{Connection, params};

use super::idempotency::{self, RecentKeys};
use super::{dialect, unavailable};
use crate::error::CommitError;
use crate::sql;
use crate::*;

pub fn prune(c: &Connection, r: &Retention) -> rusqlite::Result<u64> {
    let (idempotency_before_ms, tokens_expired_before_ms) =
        (r.idempotency_before_ms, r.tokens_expired_before_ms);
    // Expired on the service clock, or sooner on an owner's clock that runs
    // ahead; their index entries first.
    const AHEAD: &str = "owner IN (SELECT owner FROM test_clocks WHERE clock_offset_ms > 0)
           AND created_at_ms - (SELECT clock_offset_ms FROM test_clocks WHERE owner = idempotency_keys.owner) < ?1";
    idempotency::unindex(c, "created_at_ms < ?1", idempotency_before_ms)?;
    idempotency::unindex(c, AHEAD, idempotency_before_ms)?;
    let keys = c.execute(&dialect(sql::PRUNE_IDEMPOTENCY), [idempotency_before_ms])?
        + c.execute(
            &format!("DELETE FROM idempotency_keys WHERE {AHEAD}"),
            [idempotency_before_ms],
        )?;
    let revocations = c.execute(&dialect(sql::PRUNE_REVOCATIONS), [tokens_expired_before_ms])?;
    let events = c.execute(&dialect(sql::PRUNE_EVENTS), [r.events_before_ms])?
        + c.execute(&dialect(sql::PRUNE_EVENTS_AHEAD), [r.events_before_ms])?
        + c.execute(&dialect(sql::PRUNE_DELIVERIES), [r.events_before_ms])?;
    let journeys = c.execute(&dialect(sql::PRUNE_JOURNEYS), [r.journeys_before_ms])?;
    Ok((keys + revocations + events + journeys) as u64)
}

pub fn apply(c: &Connection, recent: &RecentKeys, set: &WriteSet) -> Result<(), CommitError> {
    if let Some(record) = &set.idempotency {
        idempotency::claim(c, recent, record)?;
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
            Write::Staff(w) => staff::apply(c, w).map_err(|e| CommitError::from(unavailable(e)))?,
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
                let [enquiry, mail] = crate::queries::public::enquiry_values(enquiry, mail);
                for (sql, values) in [
                    (sql::public::INSERT_ENQUIRY, enquiry),
                    (sql::public::QUEUE_ENQUIRY_MAIL, mail),
                ] {
                    let params: Vec<_> = values.iter().map(crate::exec::Param::from).collect();
                    super::exec::execute(c, sql, &params)
                        .map_err(|e| CommitError::from(unavailable(e)))?;
                }
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
