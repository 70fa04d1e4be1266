//! The executor on PostgreSQL: a pooled connection's cached statements,
//! each parameter encoded as the type the server inferred for it, and
//! each column decoded from the type it has.

use std::error::Error;

use bytes::{BufMut, BytesMut};
use deadpool_postgres::GenericClient;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

use super::PgStore;
use super::errors::{db, pool};
use crate::error::StoreError;
use crate::exec::{Backend, Dialect, Done, Exec, Param, Plan, Row, Value};

type Failure = Box<dyn Error + Sync + Send>;

/// A parameter as the statement declares it.
#[derive(Debug)]
pub(crate) struct Bound<'a>(pub(crate) Param<'a>);

impl ToSql for Bound<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Failure> {
        match (self.0, ty) {
            (Param::Null, _) => Ok(IsNull::Yes),
            (Param::Int(v), &Type::INT8) => v.to_sql(ty, out),
            (Param::Int(v), &Type::INT4) => i32::try_from(v)?.to_sql(ty, out),
            (Param::Int(v), &Type::INT2) => i16::try_from(v)?.to_sql(ty, out),
            (Param::Int(v), &Type::BOOL) => (v != 0).to_sql(ty, out),
            (Param::Bool(v), &Type::BOOL) => v.to_sql(ty, out),
            (Param::Bool(v), &Type::INT8 | &Type::INT4 | &Type::INT2) => {
                Bound(Param::Int(i64::from(v))).to_sql(ty, out)
            }
            (Param::Text(v), &Type::JSONB) => {
                // JSONB's binary form: a version byte, then the text.
                out.put_u8(1);
                out.put_slice(v.as_bytes());
                Ok(IsNull::No)
            }
            (Param::Text(v), _) if is_text(ty) => {
                out.put_slice(v.as_bytes());
                Ok(IsNull::No)
            }
            (Param::Bytes(v), &Type::BYTEA) => v.to_sql(ty, out),
            (Param::Texts(v), &Type::TEXT_ARRAY) => <&[String] as ToSql>::to_sql(&v, ty, out),
            (param, ty) => Err(format!("cannot bind {param:?} as {ty}").into()),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// The types whose binary form is the text itself.
fn is_text(ty: &Type) -> bool {
    matches!(
        *ty,
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN | Type::JSON
    )
}

impl<'a> FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, Failure> {
        Ok(match *ty {
            Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
            Type::INT4 => Value::Int(i64::from(i32::from_sql(ty, raw)?)),
            Type::INT2 => Value::Int(i64::from(i16::from_sql(ty, raw)?)),
            Type::BOOL => Value::Bool(bool::from_sql(ty, raw)?),
            Type::BYTEA => Value::Bytes(raw.to_vec()),
            Type::JSONB => match raw.split_first() {
                Some((1, text)) => Value::Text(std::str::from_utf8(text)?.to_owned()),
                _ => return Err("an unknown JSONB version".into()),
            },
            _ if is_text(ty) => Value::Text(std::str::from_utf8(raw)?.to_owned()),
            _ => return Err(format!("cannot read a column of type {ty}").into()),
        })
    }

    fn from_sql_null(_: &Type) -> Result<Self, Failure> {
        Ok(Value::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

async fn query<C: GenericClient>(
    c: &C,
    sql: &str,
    params: &[Param<'_>],
) -> Result<Vec<Row>, StoreError> {
    let statement = c.prepare_cached(sql).await.map_err(db)?;
    let bound: Vec<Bound<'_>> = params.iter().map(|p| Bound(*p)).collect();
    let refs: Vec<&(dyn ToSql + Sync)> = bound.iter().map(|b| b as &(dyn ToSql + Sync)).collect();
    c.query(&statement, &refs)
        .await
        .map_err(db)?
        .iter()
        .map(|r| {
            (0..r.len())
                .map(|i| r.try_get::<_, Value>(i).map_err(db))
                .collect::<Result<Vec<_>, _>>()
                .map(Row)
        })
        .collect()
}

async fn execute<C: GenericClient>(
    c: &C,
    sql: &str,
    params: &[Param<'_>],
) -> Result<u64, StoreError> {
    let statement = c.prepare_cached(sql).await.map_err(db)?;
    let bound: Vec<Bound<'_>> = params.iter().map(|p| Bound(*p)).collect();
    let refs: Vec<&(dyn ToSql + Sync)> = bound.iter().map(|b| b as &(dyn ToSql + Sync)).collect();
    c.execute(&statement, &refs).await.map_err(db)
}

/// A pooled connection ([`Conn`]) or a transaction on one.
pub struct On<C>(C);

/// A pooled connection.
pub type Conn = On<deadpool_postgres::Client>;

impl<C: GenericClient + Send + Sync> Exec for On<C> {
    async fn query<'s>(
        &'s mut self,
        sql: &'static str,
        params: &'s [Param<'s>],
    ) -> Result<Vec<Row>, StoreError> {
        query(&self.0, sql, params).await
    }

    async fn execute<'s>(
        &'s mut self,
        sql: &'static str,
        params: &'s [Param<'s>],
    ) -> Result<u64, StoreError> {
        execute(&self.0, sql, params).await
    }
}

impl Backend for PgStore {
    type Conn<'a> = Conn;

    async fn connection(&self) -> Result<Conn, StoreError> {
        self.pool.get().await.map(On).map_err(pool)
    }

    async fn write(&self, plan: Plan) -> Result<Vec<Done>, StoreError> {
        let mut client = self.pool.get().await.map_err(pool)?;
        let mut tx = On(client.transaction().await.map_err(db)?);
        let done = crate::exec::run_plan(&mut tx, &plan).await?;
        tx.0.commit().await.map_err(db)?;
        Ok(done)
    }

    async fn write_after<T, F>(
        &self,
        read: crate::exec::Statement,
        decide: F,
    ) -> Result<(T, Vec<Done>), StoreError>
    where
        T: Send + 'static,
        F: Fn(Option<&Row>) -> Result<(T, Plan), StoreError> + Send + Sync + 'static,
    {
        let mut client = self.pool.get().await.map_err(pool)?;
        let mut tx = On(client.transaction().await.map_err(db)?);
        let row = tx.query_opt(read.sql, &read.bound()).await?;
        let (decided, plan) = decide(row.as_ref())?;
        let done = crate::exec::run_plan(&mut tx, &plan).await?;
        tx.0.commit().await.map_err(db)?;
        Ok((decided, done))
    }

    const DIALECT: &'static Dialect = &Dialect {
        row_keyed: false,
        locks_rows: true,
    };
}
