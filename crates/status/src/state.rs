//! What the status page knows: the latest probe round, kept in memory so
//! the page answers while the database does not.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::clock::Clock;
use lendhub_domain::status::{Component, DayTally, Health};
use lendhub_store::{IncidentRecord, Maintenance, StatusStore};
use parking_lot::RwLock;
use tokio::sync::Notify;

/// How the page is run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The page's own public address (`{status_url}`), without a trailing slash.
    pub url: String,
    /// The name on the page and in `summary.json`.
    pub name: String,
    /// Between probe rounds; `None`: only when woken (tests).
    pub interval: Option<Duration>,
    /// A probe that takes longer has failed.
    pub timeout: Duration,
}

/// One component's probe: a request to the listener that serves it, and the
/// status the component answers when it works.
#[derive(Clone, Debug)]
pub struct Target {
    pub component: Component,
    pub url: String,
    pub expect: u16,
}

/// One component as the last round found it.
#[derive(Clone, Debug)]
pub struct ComponentState {
    pub component: Component,
    pub health: Health,
    /// Since when it has been in this state.
    pub since_ms: i64,
    pub latency_ms: Option<u64>,
    /// Webhook delivery only.
    pub lag_ms: Option<u64>,
    /// What the probe saw, for people: "answered 200 in 3 ms".
    pub detail: String,
}

/// Everything the page shows, replaced whole after each round.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// When the last round ran; `None` before the first.
    pub checked_at_ms: Option<i64>,
    pub components: Vec<ComponentState>,
    /// Open incidents and windows, and those updated in the last 90 days,
    /// newest first, as last read from the database.
    pub incidents: Vec<IncidentRecord>,
    /// When `incidents` and `history` were last read; older than
    /// `checked_at_ms` while the database is down.
    pub read_at_ms: Option<i64>,
    /// Per component, per UTC day (`YYYY-MM-DD`), the last 90 days.
    pub history: BTreeMap<(Component, String), DayTally>,
}

impl Snapshot {
    pub fn worst(&self) -> Health {
        self.components
            .iter()
            .map(|c| c.health)
            .max()
            .unwrap_or(Health::Operational)
    }
}

pub(crate) struct Inner {
    pub settings: Settings,
    pub targets: Vec<Target>,
    pub store: Arc<dyn StatusStore>,
    pub database: Arc<dyn Maintenance>,
    pub clock: Arc<dyn Clock>,
    pub snapshot: RwLock<Arc<Snapshot>>,
    /// When this process began reporting: every component's `created_at`.
    pub started_at_ms: i64,
    pub wake: Arc<Notify>,
    pub http: reqwest::Client,
}

#[derive(Clone)]
pub struct StatusState {
    pub(crate) inner: Arc<Inner>,
}

impl StatusState {
    pub fn new(
        settings: Settings,
        targets: Vec<Target>,
        store: Arc<dyn StatusStore>,
        database: Arc<dyn Maintenance>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder()
            .timeout(settings.timeout)
            .user_agent("lendhub-status-probe")
            .no_proxy()
            .build()?;
        let started_at_ms = clock.now_ms();
        Ok(Self {
            inner: Arc::new(Inner {
                settings,
                targets,
                store,
                database,
                clock,
                snapshot: RwLock::new(Arc::new(Snapshot::default())),
                started_at_ms,
                wake: Arc::new(Notify::new()),
                http,
            }),
        })
    }

    /// Starts a probe round now (tests, after stopping something).
    pub fn wake(&self) -> Arc<Notify> {
        self.inner.wake.clone()
    }

    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.inner.snapshot.read().clone()
    }

    pub(crate) fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    pub(crate) fn started_at_ms(&self) -> i64 {
        self.inner.started_at_ms
    }
}
