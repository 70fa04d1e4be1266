//! The executor on SQLite: statements run inline on a pooled reader (they
//! are indexed lookups taking microseconds, cheaper than a hop to a
//! blocking thread), and plans on the one writer thread, in its group
//! commit. Nothing here awaits: each future is ready when first polled.

use parking_lot::MutexGuard;
use rusqlite::Connection;
use rusqlite::types::ValueRef;

use super::{SqliteStore, unavailable};
use crate::error::StoreError;
use crate::exec::{Backend, Dialect, Done, Exec, Memos, Param, Plan, Row, Statement, Value};

/// A reader taken from the pool for one context call.
pub struct Reader<'a>(MutexGuard<'a, Connection>);

fn bind(statement: &mut rusqlite::Statement<'_>, params: &[Param<'_>]) -> rusqlite::Result<()> {
    for i in 1..=statement.parameter_count() {
        // `$n` is the n-th parameter wherever it first appears; SQLite
        // numbers named parameters by first appearance instead.
        let n = statement
            .parameter_name(i)
            .and_then(|name| name[1..].parse::<usize>().ok())
            .unwrap_or(i);
        let param = params
            .get(n - 1)
            .ok_or(rusqlite::Error::InvalidParameterCount(n, params.len()))?;
        match *param {
            Param::Null => statement.raw_bind_parameter(i, rusqlite::types::Null)?,
            Param::Int(v) => statement.raw_bind_parameter(i, v)?,
            Param::Text(v) => statement.raw_bind_parameter(i, v)?,
            Param::Bytes(v) => statement.raw_bind_parameter(i, v)?,
            Param::Bool(v) => statement.raw_bind_parameter(i, i64::from(v))?,
            Param::Texts(v) => statement.raw_bind_parameter(
                i,
                serde_json::to_string(v)
                    .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?,
            )?,
        }
    }
    Ok(())
}

fn value(v: ValueRef<'_>) -> rusqlite::Result<Value> {
    Ok(match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Text(t) => Value::Text(
            std::str::from_utf8(t)
                .map_err(|e| rusqlite::Error::Utf8Error(0, e))?
                .to_owned(),
        ),
        ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
        ValueRef::Real(_) => {
            return Err(rusqlite::Error::InvalidColumnType(
                0,
                "a real".into(),
                rusqlite::types::Type::Real,
            ));
        }
    })
}

pub(crate) fn query(c: &Connection, sql: &str, params: &[Param<'_>]) -> rusqlite::Result<Vec<Row>> {
    let mut statement = c.prepare_cached(sql)?;
    bind(&mut statement, params)?;
    let columns = statement.column_count();
    let mut rows = statement.raw_query();
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let mut values = Vec::with_capacity(columns);
        for i in 0..columns {
            values.push(value(r.get_ref(i)?)?);
        }
        out.push(Row(values));
    }
    Ok(out)
}

pub(crate) fn execute(c: &Connection, sql: &str, params: &[Param<'_>]) -> rusqlite::Result<u64> {
    let mut statement = c.prepare_cached(sql)?;
    bind(&mut statement, params)?;
    Ok(statement.raw_execute()? as u64)
}

impl Exec for Reader<'_> {
    async fn query<'s>(
        &'s mut self,
        sql: &'static str,
        params: &'s [Param<'s>],
    ) -> Result<Vec<Row>, StoreError> {
        query(&self.0, sql, params).map_err(unavailable)
    }

    async fn execute<'s>(
        &'s mut self,
        sql: &'static str,
        params: &'s [Param<'s>],
    ) -> Result<u64, StoreError> {
        execute(&self.0, sql, params).map_err(unavailable)
    }
}

/// Runs a plan on the writer's connection, inside its batch.
pub(crate) fn run_plan(c: &Connection, plan: &Plan) -> Result<Vec<Done>, StoreError> {
    let mut done: Vec<Done> = Vec::with_capacity(plan.len());
    for s in plan {
        if s.if_changed && done.last().is_some_and(|d| d.changed == 0) {
            done.push(Done::default());
            continue;
        }
        let params = s.bound();
        done.push(if s.reads {
            Done {
                changed: 0,
                rows: query(c, s.sql, &params).map_err(unavailable)?,
            }
        } else {
            Done {
                changed: execute(c, s.sql, &params).map_err(unavailable)?,
                rows: Vec::new(),
            }
        });
    }
    Ok(done)
}

impl Backend for SqliteStore {
    type Conn<'a> = Reader<'a>;

    async fn connection(&self) -> Result<Reader<'_>, StoreError> {
        Ok(Reader(self.reader()))
    }

    async fn write(&self, plan: Plan) -> Result<Vec<Done>, StoreError> {
        self.writer.run(move |c| run_plan(c, &plan)).await
    }

    async fn write_after<T, F>(
        &self,
        read: Statement,
        decide: F,
    ) -> Result<(T, Vec<Done>), StoreError>
    where
        T: Send + 'static,
        F: Fn(Option<&Row>) -> Result<(T, Plan), StoreError> + Send + Sync + 'static,
    {
        self.writer
            .run(move |c| {
                let rows = query(c, read.sql, &read.bound()).map_err(unavailable)?;
                let (decided, plan) = decide(rows.first())?;
                Ok((decided, run_plan(c, &plan)?))
            })
            .await
    }

    fn memos(&self) -> Option<&Memos> {
        self.remember_reads.then_some(&self.memos)
    }

    const DIALECT: &'static Dialect = &Dialect {
        row_keyed: true,
        locks_rows: false,
    };
}
