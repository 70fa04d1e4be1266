//! The status page's tables on SQLite.

use async_trait::async_trait;
use lendhub_domain::status::DayTally;
use rusqlite::{Connection, OptionalExtension, params};

use super::{SqliteStore, unavailable};
use crate::context::status::*;
use crate::error::StoreError;
use crate::sql::status as sql;

fn day_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<DayRecord> {
    Ok(DayRecord {
        component: r.get(0)?,
        day: r.get(1)?,
        tally: DayTally {
            operational: count(r.get(2)?),
            degraded: count(r.get(3)?),
            partial: count(r.get(4)?),
            major: count(r.get(5)?),
        },
    })
}

fn incident_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<IncidentRecord> {
    let components: String = r.get(5)?;
    Ok(IncidentRecord {
        id: r.get(0)?,
        kind: r.get(1)?,
        name: r.get(2)?,
        status: r.get(3)?,
        impact: r.get(4)?,
        components: super::rows::from_json(&components)?,
        scheduled_for_ms: r.get(6)?,
        scheduled_until_ms: r.get(7)?,
        created_at_ms: r.get(8)?,
        updated_at_ms: r.get(9)?,
        resolved_at_ms: r.get(10)?,
        updates: Vec::new(),
    })
}

fn with_updates(c: &Connection, mut incident: IncidentRecord) -> rusqlite::Result<IncidentRecord> {
    incident.updates = c
        .prepare_cached(shared!(sql::UPDATES_OF))?
        .query_map([&incident.id], |r| {
            Ok(IncidentUpdateRecord {
                id: r.get(0)?,
                incident_id: r.get(1)?,
                status: r.get(2)?,
                body: r.get(3)?,
                created_at_ms: r.get(4)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(incident)
}

fn insert_update(c: &Connection, u: &IncidentUpdateRecord) -> rusqlite::Result<()> {
    c.prepare_cached(shared!(sql::INSERT_UPDATE))?
        .execute(params![
            u.id,
            u.incident_id,
            u.status,
            u.body,
            u.created_at_ms
        ])?;
    Ok(())
}

#[async_trait]
impl StatusStore for SqliteStore {
    async fn add_status_tallies(&self, tallies: Vec<DayRecord>) -> Result<(), StoreError> {
        self.writer
            .run(move |c| {
                let mut add = c
                    .prepare_cached(shared!(sql::ADD_TALLY))
                    .map_err(unavailable)?;
                for d in &tallies {
                    let [operational, degraded, partial, major] = counts(&d.tally);
                    add.execute(params![
                        d.component,
                        d.day,
                        operational,
                        degraded,
                        partial,
                        major
                    ])
                    .map_err(unavailable)?;
                }
                Ok(())
            })
            .await
    }

    async fn status_days(&self, since_day: &str) -> Result<Vec<DayRecord>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::DAYS_SINCE))?
                .query_map([since_day], day_row)?
                .collect()
        })
    }

    async fn delivery_lag_ms(&self, now_ms: i64) -> Result<Option<i64>, StoreError> {
        self.read(|c| {
            c.prepare_cached(shared!(sql::DELIVERY_LAG))?
                .query_row([now_ms], |r| r.get(0))
                .optional()
        })
    }

    async fn create_incident(&self, i: IncidentRecord) -> Result<(), StoreError> {
        self.writer
            .run(move |c| {
                let components = serde_json::to_string(&i.components)
                    .map_err(|e| StoreError::Internal(e.to_string()))?;
                c.prepare_cached(shared!(sql::INSERT_INCIDENT))
                    .and_then(|mut s| {
                        s.execute(params![
                            i.id,
                            i.kind,
                            i.name,
                            i.status,
                            i.impact,
                            components,
                            i.scheduled_for_ms,
                            i.scheduled_until_ms,
                            i.created_at_ms
                        ])
                    })
                    .map_err(unavailable)?;
                for u in &i.updates {
                    insert_update(c, u).map_err(unavailable)?;
                }
                Ok(())
            })
            .await
    }

    async fn add_incident_update(
        &self,
        update: IncidentUpdateRecord,
        expected_status: &str,
        resolved: bool,
    ) -> Result<bool, StoreError> {
        let expected = expected_status.to_owned();
        self.writer
            .run(move |c| {
                let moved = c
                    .prepare_cached(shared!(sql::MOVE_INCIDENT))
                    .and_then(|mut s| {
                        s.execute(params![
                            update.incident_id,
                            update.status,
                            update.created_at_ms,
                            resolved,
                            expected
                        ])
                    })
                    .map_err(unavailable)?;
                if moved == 1 {
                    insert_update(c, &update).map_err(unavailable)?;
                }
                Ok(moved == 1)
            })
            .await
    }

    async fn incident(&self, id: &str) -> Result<Option<IncidentRecord>, StoreError> {
        self.read(|c| {
            let found = c
                .prepare_cached(&format!(
                    "SELECT {} FROM status_incidents WHERE id = ?1",
                    sql::INCIDENT_COLUMNS
                ))?
                .query_row([id], incident_row)
                .optional()?;
            found.map(|i| with_updates(c, i)).transpose()
        })
    }

    async fn recent_incidents(
        &self,
        since_ms: i64,
        limit: u32,
    ) -> Result<Vec<IncidentRecord>, StoreError> {
        self.read(|c| {
            let cols = sql::INCIDENT_COLUMNS;
            let found = c
                .prepare_cached(&format!(
                    "SELECT {cols} FROM status_incidents WHERE resolved_at_ms IS NULL
                     UNION
                     SELECT {cols} FROM status_incidents WHERE updated_at_ms >= ?1
                     ORDER BY created_at_ms DESC, id DESC LIMIT ?2"
                ))?
                .query_map(params![since_ms, limit], incident_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            found.into_iter().map(|i| with_updates(c, i)).collect()
        })
    }
}
