//! Row ⇄ domain conversions. Resources are stored as JSON documents beside the
//! columns that are indexed or checked.

use lendhub_domain::webhooks::endpoint::EndpointStatus;
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
