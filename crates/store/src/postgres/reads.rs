//! Reads on PostgreSQL left outside the executor (the unit of work's
//! idempotency lookup), and the column helpers the backend's own modules use.

use deadpool_postgres::ClientWrapper as Client;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::errors::{db, internal};
use crate::error::StoreError;
use crate::*;
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
