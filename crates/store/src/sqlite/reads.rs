use std::sync::LazyLock;

use rusqlite::{Connection, OptionalExtension, params};

use super::row_keys::{self, row_key};
use super::{dialect, rows};
use crate::sql;
use crate::*;
use lendhub_domain::sandbox::application::Application;
use lendhub_domain::sandbox::events::Event;
use lendhub_domain::tenant::Tenant;

const CLIENT_COLUMNS: &str = "client_id, name, secret_hash, scopes, status, created_at_ms";

fn client_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ClientRecord> {
    let status: String = r.get(4)?;
    Ok(ClientRecord {
        client_id: r.get(0)?,
        name: r.get(1)?,
        secret_hash: r.get(2)?,
        scopes: r.get(3)?,
        status: if status == "active" {
            ClientStatus::Active
        } else {
            ClientStatus::Revoked
        },
        created_at_ms: r.get(5)?,
    })
}

pub fn client(c: &Connection, client_id: &str) -> rusqlite::Result<Option<ClientRecord>> {
    c.prepare_cached(&format!(
        "SELECT {CLIENT_COLUMNS} FROM sandbox_clients WHERE client_id = ?1"
    ))?
    .query_row([client_id], client_row)
    .optional()
}

pub fn clients(c: &Connection) -> rusqlite::Result<Vec<ClientRecord>> {
    c.prepare_cached(&format!(
        "SELECT {CLIENT_COLUMNS} FROM sandbox_clients ORDER BY created_at_ms, client_id"
    ))?
    .query_map([], client_row)?
    .collect()
}

pub fn clock_offset(c: &Connection, owner: &Tenant) -> rusqlite::Result<i64> {
    c.prepare_cached(shared!(crate::sql::sandbox::CLOCK_OFFSET))?
        .query_row([owner.as_str()], |r| r.get(0))
        .optional()
        .map(Option::unwrap_or_default)
}

pub fn application(
    c: &Connection,
    owner: &Tenant,
    id: &str,
) -> rusqlite::Result<Option<Application>> {
    let body: Option<String> = c
        .prepare_cached(shared!(row_keys::sandbox::APPLICATION_BODY))?
        .query_row(params![row_key(id), id, owner.as_str()], |r| r.get(0))
        .optional()?;
    body.map(|b| rows::from_json(&b)).transpose()
}

pub fn rendered_application(
    c: &Connection,
    owner: &Tenant,
    id: &str,
) -> rusqlite::Result<Option<RenderedApplication>> {
    c.prepare_cached(shared!(row_keys::sandbox::APPLICATION_RENDERED))?
        .query_row(params![row_key(id), id, owner.as_str()], |r| {
            Ok(RenderedApplication {
                version: r.get(0)?,
                body: r.get(1)?,
            })
        })
        .optional()
}

pub fn sandbox_application_version(
    c: &Connection,
    owner: &Tenant,
    id: &str,
) -> rusqlite::Result<Option<i64>> {
    c.prepare_cached(shared!(row_keys::sandbox::APPLICATION_VERSION))?
        .query_row(params![row_key(id), id, owner.as_str()], |r| r.get(0))
        .optional()
}

pub fn event(c: &Connection, owner: &Tenant, id: &str) -> rusqlite::Result<Option<Event>> {
    c.prepare_cached(shared!(crate::sql::sandbox::EVENT))?
        .query_row([id, owner.as_str()], rows::event)
        .optional()
}

fn event_seq(c: &Connection, owner: &Tenant, id: &str) -> rusqlite::Result<Option<i64>> {
    c.prepare_cached(shared!(crate::sql::sandbox::EVENT_SEQ))?
        .query_row([id, owner.as_str()], |r| r.get(0))
        .optional()
}

/// Newest first; `starting_after` pages toward older events, `ending_before` toward newer.
pub fn list_events(c: &Connection, owner: &Tenant, q: &EventQuery) -> rusqlite::Result<EventPage> {
    let (bound, newer) = q.page.anchor();
    let seq = match bound {
        Some(id) => match event_seq(c, owner, id)? {
            Some(seq) => Some(seq),
            None => return Ok(EventPage::UnknownCursor),
        },
        None => None,
    };
    static SHAPES: LazyLock<Vec<String>> = LazyLock::new(|| {
        (0..sql::EventsPage::COUNT)
            .map(|i| dialect(sql::events_page(sql::EventsPage::from_index(i))))
            .collect()
    });
    let shape = sql::EventsPage {
        newer,
        cursor: seq.is_some(),
        typed: q.event_type.is_some(),
        after: q.created_after_ms.is_some(),
    };
    let events: Vec<Event> = c
        .prepare_cached(&SHAPES[shape.index()])?
        .query_map(
            params![
                owner.as_str(),
                seq,
                q.event_type,
                q.page.fetch(),
                q.created_after_ms
            ],
            rows::event,
        )?
        .collect::<Result<_, _>>()?;
    let page = q.page.page(events);
    Ok(EventPage::Page {
        events: page.items,
        has_more: page.has_more,
    })
}

/// The newest and oldest events' `seq` (AUTOINCREMENT: never reused, so
/// additions and removals at either end change them).
pub fn event_log_position(c: &Connection, owner: &Tenant) -> rusqlite::Result<Option<LogPosition>> {
    c.prepare_cached(shared!(crate::sql::sandbox::EVENT_LOG_POSITION))?
        .query_row([owner.as_str()], |r| {
            let (newest, oldest): (Option<i64>, Option<i64>) = (r.get(0)?, r.get(1)?);
            Ok(newest
                .zip(oldest)
                .map(|(newest, oldest)| LogPosition { newest, oldest }))
        })
}

pub fn endpoints(c: &Connection, owner: &Tenant) -> rusqlite::Result<Vec<EndpointRecord>> {
    c.prepare_cached(shared!(crate::sql::sandbox::ENDPOINTS_OF_OWNER))?
        .query_map([owner.as_str()], |r| {
            let body: String = r.get(0)?;
            Ok(EndpointRecord {
                endpoint: rows::from_json(&body)?,
                sealed_secret: r.get(1)?,
            })
        })?
        .collect()
}

/// Referred applications whose review is due on their owner's clock.
pub fn due_referrals(
    c: &Connection,
    owner: Option<&Tenant>,
    service_now_ms: i64,
    limit: u32,
) -> rusqlite::Result<Vec<DueReferral>> {
    let mine = if owner.is_some() {
        "AND a.owner = ?3"
    } else {
        "AND ?3 IS NULL"
    };
    c.prepare_cached(&format!(
        "SELECT a.body, coalesce(c.clock_offset_ms, 0) FROM applications a
         LEFT JOIN test_clocks c ON c.owner = a.owner
         WHERE a.review_due_ms IS NOT NULL
           AND a.review_due_ms - coalesce(c.clock_offset_ms, 0) <= ?1 {mine}
           AND a.review_due_ms <= ?1 + (SELECT coalesce(max(clock_offset_ms), 0) FROM test_clocks) -- offsets are never negative: this bound lets the due-time index narrow the scan
         ORDER BY a.review_due_ms - coalesce(c.clock_offset_ms, 0), a.id
         LIMIT ?2"
    ))?
    .query_map(params![service_now_ms, limit, owner.map(Tenant::as_str)], |r| {
        let body: String = r.get(0)?;
        Ok(DueReferral {
            application: rows::from_json(&body)?,
            clock_offset_ms: r.get(1)?,
        })
    })?
    .collect()
}
