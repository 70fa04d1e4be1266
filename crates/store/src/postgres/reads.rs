use deadpool_postgres::ClientWrapper as Client;
use lendhub_domain::sandbox::ids::PublishedId;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::errors::{db, internal};
use crate::error::StoreError;
use crate::*;
use lendhub_domain::sandbox::application::Application;
use lendhub_domain::sandbox::events::{Event, EventType};
use lendhub_domain::tenant::Tenant;

pub(crate) fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(internal)
}

pub(crate) fn get<'a, T: tokio_postgres::types::FromSql<'a>>(
    row: &'a Row,
    i: usize,
) -> Result<T, StoreError> {
    row.try_get(i).map_err(db)
}

fn bytes<const N: usize>(raw: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    if raw.len() == N {
        out.copy_from_slice(raw);
    }
    out
}

async fn one(
    c: &Client,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Option<Row>, StoreError> {
    let statement = c.prepare_cached(sql).await.map_err(db)?;
    c.query_opt(&statement, params).await.map_err(db)
}

async fn all(
    c: &Client,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<Row>, StoreError> {
    let statement = c.prepare_cached(sql).await.map_err(db)?;
    c.query(&statement, params).await.map_err(db)
}

const CLIENT_COLUMNS: &str = "client_id, name, secret_hash, scopes, status, created_at_ms";

fn client_row(r: &Row) -> Result<ClientRecord, StoreError> {
    let status: &str = get(r, 4)?;
    Ok(ClientRecord {
        client_id: get(r, 0)?,
        name: get(r, 1)?,
        secret_hash: get(r, 2)?,
        scopes: get(r, 3)?,
        status: if status == "active" {
            ClientStatus::Active
        } else {
            ClientStatus::Revoked
        },
        created_at_ms: get(r, 5)?,
    })
}

pub async fn client(c: &Client, client_id: &str) -> Result<Option<ClientRecord>, StoreError> {
    let sql = format!("SELECT {CLIENT_COLUMNS} FROM sandbox_clients WHERE client_id = $1");
    one(c, &sql, &[&client_id])
        .await?
        .as_ref()
        .map(client_row)
        .transpose()
}

pub async fn clients(c: &Client) -> Result<Vec<ClientRecord>, StoreError> {
    let sql =
        format!("SELECT {CLIENT_COLUMNS} FROM sandbox_clients ORDER BY created_at_ms, client_id");
    all(c, &sql, &[]).await?.iter().map(client_row).collect()
}

pub async fn clock_offset(c: &Client, owner: &Tenant) -> Result<i64, StoreError> {
    match one(c, crate::sql::sandbox::CLOCK_OFFSET, &[&owner.as_str()]).await? {
        Some(r) => get(&r, 0),
        None => Ok(0),
    }
}

pub async fn application(
    c: &Client,
    owner: &Tenant,
    id: &str,
) -> Result<Option<Application>, StoreError> {
    let row = one(
        c,
        crate::sql::sandbox::APPLICATION_BODY,
        &[&id, &owner.as_str()],
    )
    .await?;
    row.map(|r| from_json(get(&r, 0)?)).transpose()
}

pub async fn rendered_application(
    c: &Client,
    owner: &Tenant,
    id: &str,
) -> Result<Option<RenderedApplication>, StoreError> {
    let row = one(
        c,
        crate::sql::sandbox::APPLICATION_RENDERED,
        &[&id, &owner.as_str()],
    )
    .await?;
    row.map(|r| {
        Ok(RenderedApplication {
            version: get(&r, 0)?,
            body: get(&r, 1)?,
        })
    })
    .transpose()
}

pub async fn sandbox_application_version(
    c: &Client,
    owner: &Tenant,
    id: &str,
) -> Result<Option<i64>, StoreError> {
    let row = one(
        c,
        crate::sql::sandbox::APPLICATION_VERSION,
        &[&id, &owner.as_str()],
    )
    .await?;
    row.map(|r| get(&r, 0)).transpose()
}

/// Columns: id, owner, type, created_at_ms, body.
fn event_row(r: &Row) -> Result<Event, StoreError> {
    let kind: &str = get(r, 2)?;
    Ok(Event {
        id: PublishedId::from_stored(get(r, 0)?),
        owner: Tenant::from_stored(get(r, 1)?),
        event_type: EventType::parse(kind).ok_or_else(|| internal("unknown stored event type"))?,
        created_at: lendhub_domain::clock::from_unix_ms(get(r, 3)?),
        body: get(r, 4)?,
    })
}

pub async fn event(c: &Client, owner: &Tenant, id: &str) -> Result<Option<Event>, StoreError> {
    let row = one(c, crate::sql::sandbox::EVENT, &[&id, &owner.as_str()]).await?;
    row.as_ref().map(event_row).transpose()
}

/// Newest first; `starting_after` pages toward older events, `ending_before`
/// toward newer. `seq` is per owner and assigned in commit order (see the
/// migration), so a cursor never passes over an event that commits later.
pub async fn list_events(
    c: &Client,
    owner: &Tenant,
    q: &EventQuery,
) -> Result<EventPage, StoreError> {
    let (bound, newer) = q.page.anchor();
    let seq: Option<i64> = match bound {
        Some(id) => {
            let row = one(c, crate::sql::sandbox::EVENT_SEQ, &[&id, &owner.as_str()]).await?;
            match row {
                Some(r) => Some(get(&r, 0)?),
                None => return Ok(EventPage::UnknownCursor),
            }
        }
        None => None,
    };
    let sql = crate::sql::events_page(crate::sql::EventsPage {
        newer,
        cursor: seq.is_some(),
        typed: q.event_type.is_some(),
        after: q.created_after_ms.is_some(),
    });
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] = [
        &owner.as_str(),
        &seq,
        &q.event_type,
        &q.page.fetch(),
        &q.created_after_ms,
    ];
    let events = all(c, sql, &params)
        .await?
        .iter()
        .map(event_row)
        .collect::<Result<Vec<_>, _>>()?;
    let page = q.page.page(events);
    Ok(EventPage::Page {
        events: page.items,
        has_more: page.has_more,
    })
}

/// The owner's newest and oldest `seq`: per-owner sequences are never
/// reused, so additions and removals at either end change them.
pub async fn event_log_position(
    c: &Client,
    owner: &Tenant,
) -> Result<Option<LogPosition>, StoreError> {
    let row = one(
        c,
        crate::sql::sandbox::EVENT_LOG_POSITION,
        &[&owner.as_str()],
    )
    .await?;
    let Some(r) = row else { return Ok(None) };
    let (newest, oldest): (Option<i64>, Option<i64>) = (get(&r, 0)?, get(&r, 1)?);
    Ok(newest
        .zip(oldest)
        .map(|(newest, oldest)| LogPosition { newest, oldest }))
}

pub async fn endpoints(c: &Client, owner: &Tenant) -> Result<Vec<EndpointRecord>, StoreError> {
    all(
        c,
        crate::sql::sandbox::ENDPOINTS_OF_OWNER,
        &[&owner.as_str()],
    )
    .await?
    .iter()
    .map(|r| {
        Ok(EndpointRecord {
            endpoint: from_json(get(r, 0)?)?,
            sealed_secret: get(r, 1)?,
        })
    })
    .collect()
}

pub async fn idempotency(
    c: &Client,
    owner: &Tenant,
    key: &str,
) -> Result<Option<IdempotencyRecord>, StoreError> {
    let row = one(
        c,
        crate::sql::sandbox::IDEMPOTENCY_RECORD,
        &[&owner.as_str(), &key],
    )
    .await?;
    row.map(|r| {
        let status: i32 = get(&r, 1)?;
        Ok(IdempotencyRecord {
            owner: owner.to_owned(),
            key: key.to_owned(),
            fingerprint: bytes(get::<&[u8]>(&r, 0)?),
            status: u16::try_from(status).map_err(internal)?,
            body: get(&r, 2)?,
            created_at_ms: get(&r, 3)?,
        })
    })
    .transpose()
}

/// Referred applications whose review is due on their owner's clock.
pub async fn due_referrals(
    c: &Client,
    owner: Option<&Tenant>,
    service_now_ms: i64,
    limit: u32,
) -> Result<Vec<DueReferral>, StoreError> {
    let mine = if owner.is_some() {
        "AND a.owner = $3"
    } else {
        "AND $3::text IS NULL"
    };
    let sql = format!(
        "SELECT a.body, coalesce(c.clock_offset_ms, 0) FROM applications a
         LEFT JOIN test_clocks c ON c.owner = a.owner
         WHERE a.review_due_ms IS NOT NULL
           AND a.review_due_ms - coalesce(c.clock_offset_ms, 0) <= $1 {mine}
           AND a.review_due_ms <= $1 + (SELECT coalesce(max(clock_offset_ms), 0) FROM test_clocks) -- offsets are never negative: this bound lets the due-time index narrow the scan
         ORDER BY a.review_due_ms - coalesce(c.clock_offset_ms, 0), a.id
         LIMIT $2"
    );
    let limit = i64::from(limit);
    all(
        c,
        &sql,
        &[&service_now_ms, &limit, &owner.map(Tenant::as_str)],
    )
    .await?
    .iter()
    .map(|r| {
        Ok(DueReferral {
            application: from_json(get(r, 0)?)?,
            clock_offset_ms: get(r, 1)?,
        })
    })
    .collect()
}

pub async fn setting(c: &Client, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
    let row = one(c, crate::sql::sandbox::SETTINGS_SELECT_BY_NAME, &[&name]).await?;
    row.map(|r| get(&r, 0)).transpose()
}
