//! The PostgreSQL backend, for several lendhub instances on one database.
//! Reads run on pooled connections; writes go through the group-commit
//! batcher (`batch`); the outbox is claimed with `FOR UPDATE SKIP LOCKED` and
//! a lease, so every instance's worker shares it. Nothing here keeps state
//! between requests that another instance would need to see.

mod batch;
mod errors;
mod events;
mod exec;
mod jobs;
mod migrations;
mod reads;

use std::time::Duration;

use async_trait::async_trait;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

use crate::error::{CommitError, StoreError};
use crate::sql;
use crate::*;
use errors::{db, pool as pool_error};
use lendhub_domain::sandbox::ids::PublishedId;
use lendhub_domain::tenant::Tenant;

/// How to reach the database, and how long to wait for it.
#[derive(Clone, Debug)]
pub struct PgOptions {
    /// A libpq-style URL, `postgres://user:password@host:port/dbname?…`.
    pub url: String,
    /// Connections per instance, shared by reads and group commits.
    pub pool_size: usize,
    /// Connecting, or waiting for a free pooled connection, fails after this:
    /// the request answers 503 instead of hanging.
    pub timeout: Duration,
    /// The server cancels any statement running longer than this.
    pub statement_timeout: Duration,
}

/// How long sent data may go unacknowledged before a connection is given
/// up (`TCP_USER_TIMEOUT`), unless the URL says otherwise.
const UNANSWERED_PACKETS: Duration = Duration::from_secs(5);

/// How long the server lets a transaction wait on its client, and how long
/// a group commit may take before lendhub abandons it: the same bound, from
/// either end.
fn idle_in_transaction(options: &PgOptions) -> Duration {
    (options.statement_timeout * 2).min(UNANSWERED_PACKETS)
}

pub struct PgStore {
    pool: Pool,
    batcher: batch::Batcher,
}

fn config(options: &PgOptions) -> Result<tokio_postgres::Config, StoreError> {
    let mut config: tokio_postgres::Config = options
        .url
        .parse()
        .map_err(|e| StoreError::Internal(format!("database.url is not a PostgreSQL URL: {e}")))?;
    if config.get_ssl_mode() == tokio_postgres::config::SslMode::Require {
        return Err(StoreError::Internal(
            "database.url asks for sslmode=require, but lendhub does not speak TLS to PostgreSQL; \
             connect over a private network or a TLS-terminating proxy (docs/guide/src/deployment.md)"
                .into(),
        ));
    }
    if config.get_application_name().is_none() {
        config.application_name("lendhub");
    }
    config.connect_timeout(options.timeout);
    // A connection whose packets go unanswered (a partition, a host gone
    // without a reset) fails within seconds instead of after TCP's own
    // retries (about 15 minutes): the request answers 503 and the pool
    // replaces the connection. Idle ones are probed the same way.
    if config.get_tcp_user_timeout().is_none() {
        config.tcp_user_timeout(UNANSWERED_PACKETS);
    }
    if config.get_keepalives_idle() == Duration::from_secs(2 * 60 * 60) {
        config
            .keepalives_idle(UNANSWERED_PACKETS)
            .keepalives_interval(Duration::from_secs(1))
            .keepalives_retries(3);
    }
    // lendhub never leaves a transaction waiting on anything but the
    // network, and a client silent for UNANSWERED_PACKETS has given up on
    // its connection: the server ends such a transaction then, so that the
    // row locks of one cut off by a partition do not hold other instances
    // up for longer.
    // The server probes its end the same way: a backend blocked on a
    // cut-off client in the middle of a message is not "idle in
    // transaction", and without these it would hold its locks until TCP
    // gave up.
    let idle_in_transaction = idle_in_transaction(options);
    let ours = format!(
        "-c statement_timeout={} -c idle_in_transaction_session_timeout={} -c client_min_messages=warning \
         -c tcp_user_timeout={unanswered} -c tcp_keepalives_idle={idle_s} -c tcp_keepalives_interval=1 -c tcp_keepalives_count=3",
        options.statement_timeout.as_millis(),
        idle_in_transaction.as_millis(),
        unanswered = UNANSWERED_PACKETS.as_millis(),
        idle_s = UNANSWERED_PACKETS.as_secs(),
    );
    let combined = match config.get_options() {
        Some(theirs) => format!("{theirs} {ours}"),
        None => ours,
    };
    config.options(&combined);
    Ok(config)
}

/// Applies pending migrations over a connection of its own.
pub async fn migrate(options: &PgOptions) -> Result<usize, StoreError> {
    let (mut client, connection) = config(options)?.connect(NoTls).await.map_err(db)?;
    let driver = tokio::spawn(connection);
    let ran = migrations::migrate(&mut client).await;
    drop(client);
    let _ = driver.await;
    ran
}

/// Whether the database already holds lendhub's schema: administrative
/// commands refuse to create one where the operator meant to find one.
pub async fn is_initialised(options: &PgOptions) -> Result<bool, StoreError> {
    let (client, connection) = config(options)?.connect(NoTls).await.map_err(db)?;
    let driver = tokio::spawn(connection);
    let row = client
        .query_one("SELECT to_regclass('schema_migrations') IS NOT NULL", &[])
        .await
        .map_err(db);
    drop(client);
    let _ = driver.await;
    Ok(row?.get(0))
}

impl PgStore {
    /// Connects, migrates, and starts the group-commit batcher.
    pub async fn connect(options: &PgOptions) -> Result<Self, StoreError> {
        migrate(options).await?;
        let manager = Manager::from_config(
            config(options)?,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(options.pool_size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(options.timeout))
            .create_timeout(Some(options.timeout))
            .recycle_timeout(Some(options.timeout))
            .build()
            .map_err(|e| StoreError::Internal(format!("building the connection pool: {e}")))?;
        Ok(Self {
            batcher: batch::Batcher::start(pool.clone(), idle_in_transaction(options)),
            pool,
        })
    }

    async fn conn(&self) -> Result<deadpool_postgres::Client, StoreError> {
        self.pool.get().await.map_err(pool_error)
    }
}

#[async_trait]
impl Maintenance for PgStore {
    async fn ping(&self) -> Result<(), StoreError> {
        let c = self.conn().await?;
        c.simple_query("SELECT 1 FROM schema_migrations LIMIT 1")
            .await
            .map(|_| ())
            .map_err(|e| StoreError::Unavailable(e.to_string()))
    }

    async fn prune(&self, retention: Retention) -> Result<u64, StoreError> {
        let c = self.conn().await?;
        let keys = c
            .execute(sql::PRUNE_IDEMPOTENCY, &[&retention.idempotency_before_ms])
            .await
            .map_err(db)?
            + c.execute(
                "DELETE FROM idempotency_keys k USING test_clocks c
                 WHERE c.owner = k.owner AND c.clock_offset_ms > 0
                   AND k.created_at_ms - c.clock_offset_ms < $1",
                &[&retention.idempotency_before_ms],
            )
            .await
            .map_err(db)?;
        let revocations = c
            .execute(
                sql::PRUNE_REVOCATIONS,
                &[&retention.tokens_expired_before_ms],
            )
            .await
            .map_err(db)?;
        let mut events = 0;
        for sql in [
            sql::PRUNE_EVENTS,
            sql::PRUNE_EVENTS_AHEAD,
            sql::PRUNE_DELIVERIES,
        ] {
            events += c
                .execute(sql, &[&retention.events_before_ms])
                .await
                .map_err(db)?;
        }
        let mut journeys = 0;
        for sql in [sql::PRUNE_JOURNEYS, sql::PRUNE_BANK_CONNECTIONS] {
            journeys += c
                .execute(sql, &[&retention.journeys_before_ms])
                .await
                .map_err(db)?;
        }
        Ok(keys + revocations + events + journeys)
    }

    async fn close(&self) {
        self.batcher.close().await;
        self.pool.close();
    }
}

#[async_trait]
impl UnitOfWork for PgStore {
    async fn idempotency(
        &self,
        owner: &Tenant,
        key: &str,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        reads::idempotency(&*self.conn().await?, owner, key).await
    }

    async fn commit(&self, set: WriteSet) -> Result<(), CommitError> {
        if set.resets() {
            return batch::commit_alone(&self.pool, set).await;
        }
        self.batcher.commit(set).await
    }
}

#[async_trait]
impl JobStore for PgStore {
    async fn claim_deliveries(&self, lease: &Lease) -> Result<Vec<ClaimedDelivery>, StoreError> {
        jobs::claim_deliveries(&*self.conn().await?, lease).await
    }

    async fn finish_delivery(&self, result: DeliveryResult) -> Result<(), StoreError> {
        jobs::finish_delivery(&*self.conn().await?, &result).await
    }

    async fn claim_mail(&self, lease: &Lease) -> Result<Vec<ClaimedMail>, StoreError> {
        jobs::claim_mail(&*self.conn().await?, lease).await
    }

    async fn finish_mail(&self, result: MailResult) -> Result<(), StoreError> {
        jobs::finish_mail(&*self.conn().await?, &result).await
    }

    async fn release_leases(&self, queue: JobQueue, holder: &str) -> Result<u64, StoreError> {
        jobs::release_leases(&*self.conn().await?, queue, holder).await
    }

    async fn endpoint_deliveries(
        &self,
        owner: &lendhub_domain::tenant::Tenant,
        endpoint_id: &PublishedId,
        limit: u32,
    ) -> Result<Vec<DeliveryView>, StoreError> {
        let c = self.conn().await?;
        let rows = c
            .query(
                crate::sql::jobs::ENDPOINT_DELIVERIES,
                &[&endpoint_id.as_str(), &owner.as_str(), &i64::from(limit)],
            )
            .await
            .map_err(errors::db)?;
        rows.iter()
            .map(|r| {
                let attempt: i32 = reads::get(r, 4)?;
                let status: Option<i32> = reads::get(r, 5)?;
                Ok(DeliveryView {
                    id: reads::get(r, 0)?,
                    event_id: reads::get(r, 1)?,
                    event_type: reads::get(r, 2)?,
                    state: reads::get(r, 3)?,
                    attempt: i64::from(attempt),
                    last_status: status.map(i64::from),
                    last_error: reads::get(r, 6)?,
                    updated_at_ms: reads::get(r, 7)?,
                    last_latency_ms: reads::get(r, 8)?,
                    last_response: reads::get(r, 9)?,
                })
            })
            .collect()
    }
}
