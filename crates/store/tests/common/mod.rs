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

async fn fresh_postgres() -> String {
    let admin = std::env::var("TEST_POSTGRES_URL")
        .expect("TEST_BACKEND=postgres needs TEST_POSTGRES_URL; scripts/test.sh sets both");
    let (client, connection) = tokio_postgres::connect(&admin, tokio_postgres::NoTls)
        .await
        .expect("the test PostgreSQL cluster is not reachable");
    tokio::spawn(connection);
    let name = format!(
        "conformance_{}",
        lendhub_domain::ids::SandboxId::<lendhub_domain::ids::kind::Any>::new_random(0)
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
