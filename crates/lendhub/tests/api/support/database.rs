//! Which database the suite runs on: SQLite unless `TEST_BACKEND=postgres`,
//! which needs `TEST_POSTGRES_URL`, an admin URL for a cluster the
//! tests may create databases in (`scripts/test.sh` starts one and sets both).
//! Asking for PostgreSQL without one fails the test; nothing is skipped.

use std::path::Path;

use lendhub::config::Config;

pub enum Backend {
    Sqlite,
    Postgres { admin_url: String },
}

pub fn backend() -> Backend {
    match std::env::var("TEST_BACKEND").as_deref() {
        Err(_) | Ok("sqlite") => Backend::Sqlite,
        Ok("postgres") => Backend::Postgres {
            admin_url: admin_url(),
        },
        Ok(other) => panic!("unknown TEST_BACKEND {other}: sqlite or postgres"),
    }
}

pub fn admin_url() -> String {
    std::env::var("TEST_POSTGRES_URL").expect(
        "PostgreSQL tests need TEST_POSTGRES_URL (an admin URL); scripts/test.sh starts a cluster and sets it",
    )
}

/// Where one deployment keeps its data: a data directory and, on
/// PostgreSQL, a database of its own.
pub struct Site {
    pub dir: tempfile::TempDir,
    pub database_url: Option<String>,
}

impl Site {
    pub async fn new() -> Site {
        let database_url = match backend() {
            Backend::Sqlite => None,
            Backend::Postgres { admin_url } => Some(create_database(&admin_url).await),
        };
        Site {
            dir: tempfile::tempdir().unwrap(),
            database_url,
        }
    }

    /// A site on PostgreSQL whatever the backend under test: for what only a
    /// shared database can show (several instances).
    pub async fn postgres() -> Site {
        Site {
            dir: tempfile::tempdir().unwrap(),
            database_url: Some(create_database(&admin_url()).await),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The environment a `lendhub` process needs to use this site.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = vec![("LENDHUB_DATA_DIR", self.path().display().to_string())];
        if let Some(url) = &self.database_url {
            env.push(("LENDHUB_DATABASE_URL", url.clone()));
        }
        env
    }
}

/// A site's database in the suite's cluster is dropped with the site: a full
/// run makes hundreds, about 10 MB each, which once filled CI's disk.
/// (Databases in a test's private cluster go with the cluster; the name's
/// prefix keeps this from touching anything `create_database` did not make.)
impl Drop for Site {
    fn drop(&mut self) {
        let Some(url) = &self.database_url else {
            return;
        };
        let Ok(admin) = std::env::var("TEST_POSTGRES_URL") else {
            return;
        };
        if let Some(name) = url::Url::parse(url)
            .ok()
            .map(|u| u.path().trim_start_matches('/').to_owned())
            .filter(|name| name.starts_with(DATABASE_PREFIX))
        {
            drop_database(admin, name);
        }
    }
}

const DATABASE_PREFIX: &str = "api_";

/// Drops `name` on the cluster at `admin_url`, closing whatever still uses
/// it. On a thread of its own: a `Drop` may run inside the test's runtime,
/// which must not block on itself. Best effort; a cluster already gone
/// leaves nothing to drop.
fn drop_database(admin_url: String, name: String) {
    let dropping = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(&admin_url, tokio_postgres::NoTls)
                .await
                .ok()?;
            tokio::spawn(connection);
            client
                .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                .await
                .ok()
        })
    });
    let _ = dropping.join();
}

/// A new, empty database in the cluster at `admin_url`; returns its URL.
pub async fn create_database(admin_url: &str) -> String {
    let name = format!(
        "{DATABASE_PREFIX}{}",
        lendhub_system::random_token(9)
            .to_lowercase()
            .replace('-', "_")
    );
    let admin = connect(admin_url).await;
    admin
        .batch_execute(&format!("CREATE DATABASE \"{name}\""))
        .await
        .unwrap();
    let mut url = url::Url::parse(admin_url).unwrap();
    url.set_path(&name);
    url.to_string()
}

pub async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("the test PostgreSQL cluster is not reachable: {e}"));
    tokio::spawn(connection);
    client
}

/// Runs SQL on the app's database behind its back, whichever backend it is.
pub async fn execute_behind_the_back(config: &Config, sql: &str) {
    match &config.database.url {
        Some(url) => connect(url.expose())
            .await
            .batch_execute(sql)
            .await
            .unwrap(),
        None => rusqlite::Connection::open(config.database_path())
            .unwrap()
            .execute_batch(sql)
            .unwrap(),
    }
}

/// A PostgreSQL cluster of the test's own, which it may stop and start:
/// started with the same script as the suite's shared cluster.
pub struct PrivateCluster {
    dir: tempfile::TempDir,
    port: u16,
    pub admin_url: String,
}

const CLUSTER_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/pg-cluster.sh");

fn cluster_script(args: &[&str]) -> String {
    let out = std::process::Command::new("bash")
        .arg(CLUSTER_SCRIPT)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pg-cluster.sh {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

impl PrivateCluster {
    pub fn start() -> PrivateCluster {
        let dir = tempfile::Builder::new()
            .prefix("lendhub-pg-private")
            .tempdir_in("/tmp")
            .unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let data = dir.path().join("data");
        let admin_url = cluster_script(&["start", data.to_str().unwrap(), &port.to_string()]);
        PrivateCluster {
            dir,
            port,
            admin_url,
        }
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    pub fn stop(&self) {
        cluster_script(&["stop", &self.data()]);
    }

    pub fn restart(&self) {
        cluster_script(&["start", &self.data(), &self.port.to_string()]);
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        let _ = std::process::Command::new("bash")
            .arg(CLUSTER_SCRIPT)
            .args(["stop", &self.data()])
            .output();
    }
}

/// A primary with a synchronous standby under pg_auto_failover
/// (`scripts/pg-failover.sh`): lendhub reaches it through a multi-host URL
/// that asks for the read-write node.
pub struct FailoverCluster {
    dir: tempfile::TempDir,
    /// `postgres://…@a,b/lendhub?target_session_attrs=read-write`
    pub url: String,
}

const FAILOVER_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/pg-failover.sh");

impl FailoverCluster {
    pub fn up() -> FailoverCluster {
        let dir = tempfile::Builder::new()
            .prefix("lendhub-pg-failover")
            .tempdir_in("/tmp")
            .unwrap();
        // Three ports in a row: the monitor's and the two nodes'.
        let port = (0..50)
            .map(|_| {
                std::net::TcpListener::bind("127.0.0.1:0")
                    .unwrap()
                    .local_addr()
                    .unwrap()
                    .port()
            })
            .find(|p| {
                *p < 65_000
                    && (1..3).all(|n| std::net::TcpListener::bind(("127.0.0.1", p + n)).is_ok())
            })
            .unwrap();
        let mut cluster = FailoverCluster {
            url: String::new(),
            dir,
        };
        cluster.url = cluster.script(&["up", &port.to_string()]);
        cluster
    }

    fn script(&self, args: &[&str]) -> String {
        failover_script(&self.dir.path().join("cluster"), args)
    }

    /// The script off the runtime's thread: the load goes on meanwhile.
    async fn script_async(&self, args: &[&str]) -> String {
        let dir = self.dir.path().join("cluster");
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            failover_script(&dir, &args)
        })
        .await
        .unwrap()
    }

    /// `kill -9` of the primary node, keeper and server; its port.
    pub async fn kill_primary(&self) -> String {
        self.script_async(&["kill-primary"]).await
    }

    /// Waits (up to `seconds`) for another node to be promoted; its port.
    pub async fn wait_primary(&self, not: &str, seconds: u32) -> String {
        self.script_async(&["wait-primary", not, &seconds.to_string()])
            .await
    }

    pub fn state(&self) -> String {
        self.script(&["state"])
    }
}

fn failover_script(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("bash")
        .arg(FAILOVER_SCRIPT)
        .arg(args[0])
        .arg(dir)
        .args(&args[1..])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pg-failover.sh {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

impl Drop for FailoverCluster {
    fn drop(&mut self) {
        let _ = std::process::Command::new("bash")
            .arg(FAILOVER_SCRIPT)
            .arg("down")
            .arg(self.dir.path().join("cluster"))
            .output();
    }
}
