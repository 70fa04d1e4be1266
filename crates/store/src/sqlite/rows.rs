//! Row ⇄ domain conversions. Resources are stored as JSON documents beside the
//! columns that are indexed or checked.

use lendhub_domain::sandbox::events::{Event, EventType};
use lendhub_domain::sandbox::ids::PublishedId;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::webhooks::endpoint::EndpointStatus;
use rusqlite::Row;
use serde::de::DeserializeOwned;

pub fn from_json<T: DeserializeOwned>(text: &str) -> rusqlite::Result<T> {
    serde_json::from_str(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}

pub fn to_json<T: serde::Serialize>(value: &T) -> rusqlite::Result<String> {
    serde_json::to_string(value).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

fn bad(msg: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, msg.to_owned().into())
}

pub fn endpoint_status(raw: &str) -> rusqlite::Result<EndpointStatus> {
    EndpointStatus::parse(raw).ok_or_else(|| bad("unknown stored endpoint status"))
}

/// Columns: id, owner, type, created_at_ms, body.
pub fn event(row: &Row<'_>) -> rusqlite::Result<Event> {
    let kind: String = row.get(2)?;
    Ok(Event {
        id: PublishedId::from_stored(row.get(0)?),
        owner: Tenant::from_stored(row.get(1)?),
        event_type: EventType::parse(&kind).ok_or_else(|| bad("unknown stored event type"))?,
        created_at: lendhub_domain::clock::from_unix_ms(row.get(3)?),
        body: row.get(4)?,
    })
}
