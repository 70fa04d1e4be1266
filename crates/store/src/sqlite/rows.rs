//! Row ⇄ domain conversions on SQLite's own paths (the job claims):
//! resources are stored as JSON documents beside the columns that are
//! indexed or checked.

use serde::de::DeserializeOwned;

pub fn from_json<T: DeserializeOwned>(text: &str) -> rusqlite::Result<T> {
    serde_json::from_str(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}
