//! The backend the conformance suites run against: SQLite unless
//! `TEST_BACKEND=postgres`, which needs `TEST_POSTGRES_URL` (an admin URL;
//! `scripts/test.sh` starts a throwaway cluster and sets both). Each
//! database is fresh; a missing cluster fails loudly.

use std::sync::Arc;

use lendhub_store::Store;
use lendhub_store::postgres::{PgOptions, PgStore};
use lendhub_store::sqlite::SqliteStore;
use lendhub_system::NewRandom;

enum Target {
    Sqlite(std::path::PathBuf),
    Postgres(String),
}

pub struct Database {
    target: Target,
    _dir: tempfile::TempDir,
}

impl Database {
    pub async fn fresh() -> Database {
        let dir = tempfile::tempdir().unwrap();
        let target = match std::env::var("TEST_BACKEND").as_deref() {
            Err(_) | Ok("sqlite") => Target::Sqlite(dir.path().join("t.db")),
            Ok("postgres") => Target::Postgres(fresh_postgres().await),
            Ok(other) => panic!("unknown TEST_BACKEND {other}"),
        };
        Database { target, _dir: dir }
    }

    pub fn backend(&self) -> lendhub_store::plans::Backend {
        match self.target {
            Target::Sqlite(_) => lendhub_store::plans::Backend::Sqlite,
            Target::Postgres(_) => lendhub_store::plans::Backend::Postgres,
        }
    }

    /// A store on this database; several may be open at once, like instances.
    pub async fn open(&self) -> Arc<dyn Store> {
        match &self.target {
            Target::Sqlite(path) => Arc::new(SqliteStore::open(path).unwrap()),
            Target::Postgres(url) => Arc::new(
                PgStore::connect(&PgOptions {
                    url: url.clone(),
                    pool_size: 8,
                    timeout: std::time::Duration::from_secs(5),
                    statement_timeout: std::time::Duration::from_secs(30),
                })
                .await
                .unwrap(),
            ),
        }
    }
}

/// A PostgreSQL database is dropped with its test: a run makes one per test,
/// about 10 MB each. On a thread of its own, since a `Drop` may run inside
/// the test's runtime; best effort.
impl Drop for Database {
    fn drop(&mut self) {
        let Target::Postgres(url) = &self.target else {
            return;
        };
        let (Ok(admin), Ok(url)) = (std::env::var("TEST_POSTGRES_URL"), url::Url::parse(url))
        else {
            return;
        };
        let name = url.path().trim_start_matches('/').to_owned();
        let dropping = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(async {
                let (client, connection) = tokio_postgres::connect(&admin, tokio_postgres::NoTls)
                    .await
                    .ok()?;
                tokio::spawn(connection);
                client
                    .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .await
                    .ok()
            })
        });
        let _ = dropping.join();
    }
}

impl Database {
    /// Runs `sql` on a connection of its own, outside any store: what a
    /// person at a database prompt could do. The error, if the database
    /// refuses.
    pub async fn execute_raw(&self, sql: &str) -> Result<(), String> {
        match &self.target {
            Target::Sqlite(path) => rusqlite::Connection::open(path)
                .and_then(|c| c.execute_batch(sql))
                .map_err(|e| e.to_string()),
            Target::Postgres(url) => {
                let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                    .await
                    .map_err(|e| e.to_string())?;
                tokio::spawn(connection);
                client.batch_execute(sql).await.map_err(|e| {
                    e.as_db_error()
                        .map_or_else(|| e.to_string(), |d| d.message().to_owned())
                })
            }
        }
    }

    /// The backend's plan for `sql` (shared dialect, `$n` placeholders) with
    /// `bind` spelled in: one line per plan node.
    pub async fn explain(&self, sql: &str, bind: &[lendhub_store::plans::Value]) -> Vec<String> {
        match &self.target {
            Target::Sqlite(path) => {
                let sql = with_values(sql, bind, sqlite_literal);
                let conn = rusqlite::Connection::open(path).unwrap();
                let mut plan = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
                plan.query_map([], |r| r.get::<_, String>(3))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect()
            }
            Target::Postgres(url) => {
                let sql = with_values(sql, bind, postgres_literal);
                let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(connection);
                // An empty table is cheapest to read whole; forbid that, and
                // what remains is the plan an index makes possible.
                client
                    .batch_execute("SET enable_seqscan = off")
                    .await
                    .unwrap();
                client
                    .query(&format!("EXPLAIN {sql}"), &[])
                    .await
                    .unwrap()
                    .iter()
                    .map(|row| row.get::<_, String>(0))
                    .collect()
            }
        }
    }
}

/// `sql` with each `$n` replaced by the literal of `bind[n - 1]`.
fn with_values(
    sql: &str,
    bind: &[lendhub_store::plans::Value],
    literal: fn(&lendhub_store::plans::Value) -> String,
) -> String {
    let mut out = sql.to_owned();
    // Highest first, so `$1` does not eat the start of `$10`.
    for (i, value) in bind.iter().enumerate().rev() {
        out = out.replace(&format!("${}", i + 1), &literal(value));
    }
    out
}

fn sqlite_literal(value: &lendhub_store::plans::Value) -> String {
    use lendhub_store::plans::Value;
    match value {
        Value::Text(t) => format!("'{t}'"),
        Value::Int(n) => n.to_string(),
        Value::Bytes(b) => format!("X'{}'", hex(b)),
        Value::Null => "NULL".into(),
    }
}

fn postgres_literal(value: &lendhub_store::plans::Value) -> String {
    use lendhub_store::plans::Value;
    match value {
        Value::Text(t) => format!("'{t}'"),
        Value::Int(n) => format!("{n}::bigint"),
        Value::Bytes(b) => format!("'\\x{}'::bytea", hex(b)),
        Value::Null => "NULL".into(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn fresh_postgres() -> String {
    let admin = std::env::var("TEST_POSTGRES_URL")
        .expect("TEST_BACKEND=postgres needs TEST_POSTGRES_URL; scripts/test.sh sets both");
    let (client, connection) = tokio_postgres::connect(&admin, tokio_postgres::NoTls)
        .await
        .expect("the test PostgreSQL cluster is not reachable");
    tokio::spawn(connection);
    let name = format!(
        "conformance_{}",
        lendhub_domain::sandbox::ids::SandboxId::<lendhub_domain::sandbox::ids::kind::Any>::new_random(0)
            .as_str()
            .to_lowercase()
    );
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    let mut url = url::Url::parse(&admin).unwrap();
    url.set_path(&name);
    url.to_string()
}
