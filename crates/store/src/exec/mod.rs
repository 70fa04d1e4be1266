//! The dialect-neutral executor every context is written once over.
//!
//! Statements live in `crate::sql`, spelled in PostgreSQL's `$n`
//! placeholders, which SQLite accepts as named parameters (the SQLite
//! executor binds `$n` to the n-th parameter whatever order they appear
//! in). A backend supplies a connection that runs them ([`Exec`]), and the
//! store itself ([`Backend`]): a connection to read on, a transaction to
//! write a few statements in, and the handful of statements whose SQL
//! truly differs ([`Dialect`]). Rows come back as [`Row`]s of owned
//! [`Value`]s, and each record's mapper from a row is written once beside
//! the context that reads it (`crate::queries`).

mod memo;
mod value;

use std::future::Future;

pub use memo::{Memos, ReadMemo, remembered};
pub use value::{FromValue, Param, Row, Value, from_json, to_json};

use crate::error::StoreError;

/// A connection or transaction that runs statements.
pub trait Exec: Send {
    /// Every row `sql` returns with `params`.
    fn query<'s>(
        &'s mut self,
        sql: &'static str,
        params: &'s [Param<'s>],
    ) -> impl Future<Output = Result<Vec<Row>, StoreError>> + Send + 's;

    /// How many rows `sql` changed.
    fn execute<'s>(
        &'s mut self,
        sql: &'static str,
        params: &'s [Param<'s>],
    ) -> impl Future<Output = Result<u64, StoreError>> + Send + 's;

    /// The first row `sql` returns, if any.
    fn query_opt<'s>(
        &'s mut self,
        sql: &'static str,
        params: &'s [Param<'s>],
    ) -> impl Future<Output = Result<Option<Row>, StoreError>> + Send + 's {
        async move { Ok(self.query(sql, params).await?.into_iter().next()) }
    }

    /// The one row `sql` returns; none is a fault.
    fn query_one<'s>(
        &'s mut self,
        sql: &'static str,
        params: &'s [Param<'s>],
    ) -> impl Future<Output = Result<Row, StoreError>> + Send + 's {
        async move {
            self.query_opt(sql, params)
                .await?
                .ok_or_else(|| StoreError::Internal(format!("no row from: {sql}")))
        }
    }
}

/// A database the contexts run on.
pub trait Backend: Send + Sync + 'static {
    type Conn<'a>: Exec + 'a
    where
        Self: 'a;

    /// A connection to read on.
    fn connection(&self) -> impl Future<Output = Result<Self::Conn<'_>, StoreError>> + Send;

    /// Runs `plan`'s statements in one transaction, in order, and answers
    /// once it has committed: each statement's rows and count of changes.
    fn write(&self, plan: Plan) -> impl Future<Output = Result<Vec<Done>, StoreError>> + Send;

    /// Reads `read`'s first row and runs the plan `decide` makes of it, in
    /// one transaction: a change that depends on what it read. On SQLite the
    /// read runs on the writer, in its batch, rather than on a reader whose
    /// snapshot a busy writer keeps moving. `decide` may run more than once
    /// (a failed batch is run again job by job), so it only decides.
    fn write_after<T, F>(
        &self,
        read: Statement,
        decide: F,
    ) -> impl Future<Output = Result<(T, Vec<Done>), StoreError>> + Send
    where
        T: Send + 'static,
        F: Fn(Option<&Row>) -> Result<(T, Plan), StoreError> + Send + Sync + 'static;

    /// Every row `sql` finds with `params`, each mapped by `map`.
    fn all<'a, T, F>(
        &'a self,
        sql: &'static str,
        params: &'a [Param<'a>],
        map: F,
    ) -> impl Future<Output = Result<Vec<T>, StoreError>> + Send + 'a
    where
        Self: Sized,
        T: 'a,
        F: Fn(&Row) -> Result<T, StoreError> + Send + 'a,
    {
        async move {
            let mut c = self.connection().await?;
            c.query(sql, params).await?.iter().map(map).collect()
        }
    }

    /// The first row `sql` finds with `params`, mapped by `map`.
    fn one<'a, T, F>(
        &'a self,
        sql: &'static str,
        params: &'a [Param<'a>],
        map: F,
    ) -> impl Future<Output = Result<Option<T>, StoreError>> + Send + 'a
    where
        Self: Sized,
        T: 'a,
        F: Fn(&Row) -> Result<T, StoreError> + Send + 'a,
    {
        async move {
            let mut c = self.connection().await?;
            c.query_opt(sql, params)
                .await?
                .as_ref()
                .map(map)
                .transpose()
        }
    }

    /// What this backend may answer from memory; `None` (PostgreSQL, where
    /// another instance may have written) reads every time.
    fn memos(&self) -> Option<&Memos> {
        None
    }

    /// The statements this backend spells its own way.
    const DIALECT: &'static Dialect;
}

/// Statements to run in one transaction: what a write outside a request's
/// unit of work (an operator's command, a worker's bookkeeping) does. Its
/// parameters are owned, so a backend can queue it and run it again.
pub type Plan = Vec<Statement>;

/// One statement of a [`Plan`].
#[derive(Clone, Debug)]
pub struct Statement {
    pub sql: &'static str,
    pub params: Vec<Value>,
    /// Whether its rows are wanted (a `SELECT`, a `RETURNING`); otherwise
    /// its count of changes is.
    pub reads: bool,
    /// Runs only if the statement before it changed a row (an update's
    /// history, written only when the update's condition held).
    pub if_changed: bool,
}

impl Statement {
    /// A statement whose count of changes is wanted.
    pub fn change(sql: &'static str, params: Vec<Value>) -> Self {
        Self {
            sql,
            params,
            reads: false,
            if_changed: false,
        }
    }

    /// A statement whose rows are wanted.
    pub fn read(sql: &'static str, params: Vec<Value>) -> Self {
        Self {
            sql,
            params,
            reads: true,
            if_changed: false,
        }
    }

    /// This statement, run only if the one before it changed a row.
    pub fn if_changed(self) -> Self {
        Self {
            if_changed: true,
            ..self
        }
    }

    /// Its parameters, borrowed for an [`Exec`].
    pub fn bound(&self) -> Vec<Param<'_>> {
        self.params.iter().map(|v: &Value| Param::from(v)).collect()
    }
}

/// What one statement of a plan did.
#[derive(Clone, Debug, Default)]
pub struct Done {
    pub changed: u64,
    pub rows: Vec<Row>,
}

/// Runs `plan` on `tx`, a transaction the caller commits.
pub async fn run_plan<E: Exec>(tx: &mut E, plan: &Plan) -> Result<Vec<Done>, StoreError> {
    let mut done: Vec<Done> = Vec::with_capacity(plan.len());
    for statement in plan {
        if statement.if_changed && done.last().is_some_and(|d| d.changed == 0) {
            done.push(Done::default());
            continue;
        }
        let params = statement.bound();
        done.push(if statement.reads {
            Done {
                changed: 0,
                rows: tx.query(statement.sql, &params).await?,
            }
        } else {
            Done {
                changed: tx.execute(statement.sql, &params).await?,
                rows: Vec::new(),
            }
        });
    }
    Ok(done)
}

impl Dialect {
    /// A read of one row by `id`: on SQLite `keyed` (from
    /// `sqlite::row_keys`), with the key `id` carries as `$1` before
    /// `params`; elsewhere `plain` with `params` alone.
    pub fn by_row_key<'a>(
        &self,
        keyed: &'static str,
        plain: &'static str,
        params: &[Param<'a>],
    ) -> (&'static str, Vec<Param<'a>>) {
        if !self.row_keyed {
            return (plain, params.to_vec());
        }
        let key = match params.first() {
            Some(Param::Text(id)) => crate::sqlite::row_keys::row_key(id),
            _ => None,
        };
        let mut keyed_params = Vec::with_capacity(params.len() + 1);
        keyed_params.push(Param::from(key));
        keyed_params.extend_from_slice(params);
        (keyed, keyed_params)
    }
}

/// The few statements whose SQL differs between the backends.
pub struct Dialect {
    /// SQLite finds applications by the key their id carries
    /// (`sqlite::row_keys`): statements marked `row_keyed` there take that
    /// key as `$1` and the usual parameters after it.
    pub row_keyed: bool,
    /// Whether a unit of work's checks lock the rows they read until
    /// commit: on PostgreSQL, where other transactions write at the same
    /// time; not on SQLite, whose one writer runs one unit at a time.
    pub locks_rows: bool,
}

impl Dialect {
    /// A check's statement, locking what it reads where rows need locking.
    pub fn lock(&self, lock: &Lock) -> &'static str {
        if self.locks_rows {
            lock.locking
        } else {
            lock.plain
        }
    }

    /// An insert of a row a ULID names: on SQLite `keyed`, with the key
    /// the id (`values[0]`) carries as `$1` before `values`; elsewhere
    /// `plain` with `values` alone.
    pub fn keyed_insert(
        &self,
        keyed: &'static str,
        plain: &'static str,
        mut values: Vec<Value>,
    ) -> (&'static str, Vec<Value>) {
        if !self.row_keyed {
            return (plain, values);
        }
        let key = match values.first() {
            Some(Value::Text(id)) => crate::sqlite::row_keys::row_key(id),
            _ => None,
        };
        values.insert(0, Value::from(key));
        (keyed, values)
    }
}

/// A check's read of the row a write's condition is on, written once: as
/// it is, and with the lock PostgreSQL takes on what it finds ([`lock!`]).
#[derive(Clone, Copy, Debug)]
pub struct Lock {
    pub plain: &'static str,
    pub locking: &'static str,
}

/// `lock!("SELECT 1 FROM t WHERE …")`: the read, and the read `FOR UPDATE`.
#[macro_export]
macro_rules! lock {
    ($sql:literal) => {
        $crate::exec::Lock {
            plain: $sql,
            locking: concat!($sql, " FOR UPDATE"),
        }
    };
}
