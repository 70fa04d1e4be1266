//! The status page's storage: each component's probes per day, and the
//! incidents and maintenance windows operators write.

use async_trait::async_trait;
use lendhub_domain::ids::IncidentId;
use lendhub_domain::status::DayTally;

use crate::error::StoreError;

/// One component's probes on one UTC day (`YYYY-MM-DD`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DayRecord {
    pub component: String,
    pub day: String,
    pub tally: DayTally,
}

/// An incident or a maintenance window, with its updates oldest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncidentRecord {
    /// `inc_…`
    pub id: String,
    /// `incident` or `maintenance`.
    pub kind: String,
    pub name: String,
    /// The latest update's status.
    pub status: String,
    pub impact: String,
    /// Component keys.
    pub components: Vec<String>,
    /// A maintenance window's start and end.
    pub scheduled_for_ms: Option<i64>,
    pub scheduled_until_ms: Option<i64>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// When it was resolved (incident) or completed (maintenance).
    pub resolved_at_ms: Option<i64>,
    pub updates: Vec<IncidentUpdateRecord>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncidentUpdateRecord {
    /// `incu_…`
    pub id: String,
    pub incident_id: String,
    pub status: String,
    pub body: String,
    pub created_at_ms: i64,
}

#[async_trait]
pub trait StatusStore: Send + Sync {
    /// Adds each tally to its component's day (creating the day). Adding
    /// rather than setting lets several instances count into one history.
    async fn add_status_tallies(&self, tallies: Vec<DayRecord>) -> Result<(), StoreError>;
    /// Every component's days from `since_day` on, oldest first.
    async fn status_days(&self, since_day: &str) -> Result<Vec<DayRecord>, StoreError>;
    /// How long the oldest delivery that is due to an enabled endpoint has
    /// waited past its due time, on its owner's clock; `None` when nothing
    /// is due.
    async fn delivery_lag_ms(&self, now_ms: i64) -> Result<Option<i64>, StoreError>;

    /// Stores a new incident with its first update (`updates[0]`).
    async fn create_incident(&self, incident: IncidentRecord) -> Result<(), StoreError>;
    /// Adds an update if the incident's status is still `expected_status`
    /// (so two operators cannot both move it from the same state); returns
    /// whether it was added. `resolved` marks it ended.
    async fn add_incident_update(
        &self,
        update: IncidentUpdateRecord,
        expected_status: &str,
        resolved: bool,
    ) -> Result<bool, StoreError>;
    async fn incident(&self, id: &IncidentId) -> Result<Option<IncidentRecord>, StoreError>;
    /// Those still open and those updated at or after `since_ms`, newest
    /// first, at most `limit`, each with its updates.
    async fn recent_incidents(
        &self,
        since_ms: i64,
        limit: u32,
    ) -> Result<Vec<IncidentRecord>, StoreError>;
}

/// A tally's counts as the databases' signed integers (a count past
/// `i64::MAX` is not reachable at one probe per second).
pub(crate) fn counts(t: &DayTally) -> [i64; 4] {
    [t.operational, t.degraded, t.partial, t.major].map(|n| i64::try_from(n).unwrap_or(i64::MAX))
}

/// A stored count (never negative) as a tally's.
pub(crate) fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}
