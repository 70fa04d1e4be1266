//! `lendhub-bench seed`: fills a database with applications and events the
//! way the API would have made them, fast (batched commits through the
//! store itself, no HTTP), so that the growth runs can measure the service
//! at millions of rows.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use lendhub_domain::ids::{self, HubId};
use lendhub_domain::sandbox::events::{Event, HUB_API_VERSION, Publisher};
use lendhub_domain::tenant::Tenant;
use lendhub_store::postgres::{PgOptions, PgStore};
use lendhub_store::sqlite::SqliteStore;
use lendhub_store::{EventWrite, LedgerWrite, SandboxWrite, Store, Write, WriteSet};
use time::OffsetDateTime;

#[derive(clap::Args, Debug)]
pub struct SeedArgs {
    /// The server's database: a SQLite file, or a postgres:// URL.
    #[arg(long)]
    database: String,
    /// The sandbox client that owns every row (create it first); with
    /// `--partner`, the partner client whose live environment does.
    #[arg(long)]
    owner: String,
    /// Write the REST tier's events instead (`evt_` ids, the tier's live
    /// envelope) for a partner's live environment; no applications.
    #[arg(long)]
    partner: bool,
    /// Applications to add, each with the record the API stores.
    #[arg(long, default_value_t = 0)]
    applications: u64,
    /// Events to add (`application.created` and `decision.completed`, in
    /// pairs, as creating an application publishes them).
    #[arg(long, default_value_t = 0)]
    events: u64,
    /// Rows per commit.
    #[arg(long, default_value_t = 5_000)]
    batch: usize,
    /// Write this many application ids, spread evenly from the oldest to
    /// the newest, one a line to `--sample-ids` (for `--app-ids-file`).
    #[arg(long, default_value_t = 20_000)]
    samples: u64,
    /// Where to write the sampled application ids.
    #[arg(long)]
    sample_ids: Option<std::path::PathBuf>,
}

/// Runs the generator; prints one JSON line.
pub fn run(args: &SeedArgs) -> Result<()> {
    if args.batch == 0 {
        bail!("--batch must be at least 1");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    runtime.block_on(async {
        let store = open(&args.database).await?;
        let started = Instant::now();
        let seeded = fill(store.as_ref(), args).await?;
        store.close().await;
        if let Some(path) = &args.sample_ids {
            let mut lines = seeded.sample.join("\n");
            lines.push('\n');
            std::fs::write(path, lines).with_context(|| format!("writing {}", path.display()))?;
        }
        let took = started.elapsed();
        println!(
            "{}",
            serde_json::json!({
                "applications": seeded.applications,
                "events": seeded.events,
                "middle_application_id": seeded.middle.as_ref().map(|m| &m.0),
                "middle_event_id": seeded.middle.as_ref().map(|m| &m.1),
                "sampled_application_ids": seeded.sample.len(),
                "seconds": took.as_secs_f64(),
                "rows_per_second": rate(seeded.applications + seeded.events, took),
            })
        );
        Ok(())
    })
}

pub(crate) async fn open(database: &str) -> Result<Arc<dyn Store>> {
    if database.starts_with("postgres://") || database.starts_with("postgresql://") {
        let options = PgOptions {
            url: database.to_owned(),
            pool_size: 4,
            timeout: Duration::from_secs(30),
            statement_timeout: Duration::from_secs(600),
        };
        return Ok(Arc::new(PgStore::connect(&options).await?));
    }
    Ok(Arc::new(SqliteStore::open(std::path::Path::new(database))?))
}

/// Company numbers with each of the sandbox's decisions, so the rows read
/// like real traffic.
const COMPANIES: [&str; 4] = ["12345678", "00000401", "00000402", "00000405"];

/// What was added, and the ids of one application and one event halfway
/// through, for reads that are neither the newest nor the oldest.
struct Seeded {
    applications: u64,
    events: u64,
    middle: Option<(String, String)>,
    /// Every `n`th application's id (`--samples` of them).
    sample: Vec<String>,
}

/// The REST tier's live envelope around what the sandbox's event said, with
/// a hub id: the rows `GET /partner/v1/events` reads.
fn as_hub_event(event: &Event, owner: &Tenant, random: u128) -> Result<Event> {
    let body: serde_json::Value = serde_json::from_str(&event.body)?;
    let publisher = Publisher {
        api_version: HUB_API_VERSION,
        livemode: true,
    };
    let ms = lendhub_domain::clock::unix_ms(event.created_at) as u64;
    let id = ids::EventId::generate(ms, random);
    Ok(publisher.event(
        id,
        owner,
        event.event_type,
        &body["data"]["object"],
        event.created_at,
    )?)
}

async fn fill(store: &dyn Store, args: &SeedArgs) -> Result<Seeded> {
    let sandbox_owner = Tenant::sandbox_client(&args.owner);
    let owner = if args.partner {
        Tenant::partner(&args.owner, true, None)
    } else {
        sandbox_owner.clone()
    };
    if args.partner && args.applications > 0 {
        bail!("--partner seeds events only");
    }
    // Oldest first, a millisecond apart, ending now: ids and sequence
    // numbers grow together, as they do in service.
    let pairs = args.applications.max(args.events.div_ceil(2));
    let start = OffsetDateTime::now_utc() - time::Duration::milliseconds(pairs as i64);
    let (mut applications, mut events) = (0u64, 0u64);
    let mut middle = None;
    let every = args.applications.div_ceil(args.samples.max(1)).max(1);
    let mut sample = Vec::new();
    let mut writes = WriteSet::default();
    for i in 0..pairs {
        let at = start + time::Duration::milliseconds(i as i64);
        let company = COMPANIES[(i % 4) as usize];
        let amount = 5_000 + (i as i64 % 1_000) * 1_000;
        let (record, mut pair) =
            lendhub_sandbox::seed::application(&sandbox_owner, company, amount, at)
                .map_err(|e| anyhow::anyhow!("rendering a seeded application: {e:?}"))?;
        if args.partner {
            for (n, event) in pair.iter_mut().enumerate() {
                *event = as_hub_event(event, &owner, u128::from(i) << 8 | n as u128)?;
            }
        }
        if i == pairs / 2 {
            middle = Some((record.application.id.to_string(), pair[0].id.to_string()));
        }
        if applications < args.applications {
            if applications % every == 0 {
                sample.push(record.application.id.to_string());
            }
            writes.push(SandboxWrite::InsertApplication(record));
            applications += 1;
        }
        for event in pair {
            if events < args.events {
                writes.push(EventWrite::InsertEvent(event));
                events += 1;
            }
        }
        if writes.writes.len() >= args.batch {
            commit(store, &mut writes).await?;
        }
    }
    commit(store, &mut writes).await?;
    Ok(Seeded {
        applications,
        events,
        middle,
        sample,
    })
}

pub(crate) async fn commit(store: &dyn Store, writes: &mut WriteSet) -> Result<()> {
    if writes.writes.is_empty() {
        return Ok(());
    }
    // A post or void closes a pending transfer the store must already
    // hold (as the rail's answer comes in a later commit than the send):
    // the closes of a batch go in a commit after the rest.
    let (closes, opens): (Vec<_>, Vec<_>) =
        std::mem::take(&mut writes.writes).into_iter().partition(
            |w| matches!(w, Write::Ledger(LedgerWrite::Post(t)) if t.phase().closes().is_some()),
        );
    let mut idempotency = writes.idempotency.take();
    for batch in [opens, closes] {
        if batch.is_empty() {
            continue;
        }
        store
            .commit(WriteSet {
                writes: batch,
                idempotency: idempotency.take(),
            })
            .await
            .map_err(|e| anyhow::anyhow!("commit failed: {e:?}"))?;
    }
    Ok(())
}

fn rate(rows: u64, took: Duration) -> f64 {
    rows as f64 / took.as_secs_f64().max(1e-9)
}
