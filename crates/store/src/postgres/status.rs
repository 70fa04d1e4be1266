//! The status page's tables on PostgreSQL.

use async_trait::async_trait;
use lendhub_domain::status::DayTally;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::PgStore;
use super::errors::db;
use super::reads::get;
use crate::context::status::*;
use crate::error::StoreError;
use crate::sql::status as sql;

fn day_row(r: &Row) -> Result<DayRecord, StoreError> {
    Ok(DayRecord {
        component: get(r, 0)?,
        day: get(r, 1)?,
        tally: DayTally {
            operational: count(get(r, 2)?),
            degraded: count(get(r, 3)?),
            partial: count(get(r, 4)?),
            major: count(get(r, 5)?),
        },
    })
}

fn incident_row(r: &Row) -> Result<IncidentRecord, StoreError> {
    let components: String = get(r, 5)?;
    Ok(IncidentRecord {
        id: get(r, 0)?,
        kind: get(r, 1)?,
        name: get(r, 2)?,
        status: get(r, 3)?,
        impact: get(r, 4)?,
        components: serde_json::from_str(&components)
            .map_err(|e| StoreError::Internal(format!("status_incidents.components: {e}")))?,
        scheduled_for_ms: get(r, 6)?,
        scheduled_until_ms: get(r, 7)?,
        created_at_ms: get(r, 8)?,
        updated_at_ms: get(r, 9)?,
        resolved_at_ms: get(r, 10)?,
        updates: Vec::new(),
    })
}

async fn with_updates(
    c: &impl deadpool_postgres::GenericClient,
    mut incident: IncidentRecord,
) -> Result<IncidentRecord, StoreError> {
    let rows = c
        .query(sql::UPDATES_OF, &[&incident.id])
        .await
        .map_err(db)?;
    incident.updates = rows
        .iter()
        .map(|r| {
            Ok(IncidentUpdateRecord {
                id: get(r, 0)?,
                incident_id: get(r, 1)?,
                status: get(r, 2)?,
                body: get(r, 3)?,
                created_at_ms: get(r, 4)?,
            })
        })
        .collect::<Result<_, StoreError>>()?;
    Ok(incident)
}

async fn insert_update(
    c: &impl deadpool_postgres::GenericClient,
    u: &IncidentUpdateRecord,
) -> Result<(), StoreError> {
    let params: [&(dyn ToSql + Sync); 5] =
        [&u.id, &u.incident_id, &u.status, &u.body, &u.created_at_ms];
    c.execute(sql::INSERT_UPDATE, &params).await.map_err(db)?;
    Ok(())
}

#[async_trait]
impl StatusStore for PgStore {
    async fn add_status_tallies(&self, tallies: Vec<DayRecord>) -> Result<(), StoreError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        for d in &tallies {
            let [operational, degraded, partial, major] = counts(&d.tally);
            tx.execute(
                sql::ADD_TALLY,
                &[
                    &d.component,
                    &d.day,
                    &operational,
                    &degraded,
                    &partial,
                    &major,
                ],
            )
            .await
            .map_err(db)?;
        }
        tx.commit().await.map_err(db)
    }

    async fn status_days(&self, since_day: &str) -> Result<Vec<DayRecord>, StoreError> {
        let c = self.conn().await?;
        let rows = c.query(sql::DAYS_SINCE, &[&since_day]).await.map_err(db)?;
        rows.iter().map(day_row).collect()
    }

    async fn delivery_lag_ms(&self, now_ms: i64) -> Result<Option<i64>, StoreError> {
        let c = self.conn().await?;
        let row = c
            .query_opt(sql::DELIVERY_LAG, &[&now_ms])
            .await
            .map_err(db)?;
        row.as_ref().map(|r| get(r, 0)).transpose()
    }

    async fn create_incident(&self, i: IncidentRecord) -> Result<(), StoreError> {
        let components = serde_json::to_string(&i.components)
            .map_err(|e| StoreError::Internal(e.to_string()))?;
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        tx.execute(
            sql::INSERT_INCIDENT,
            &[
                &i.id,
                &i.kind,
                &i.name,
                &i.status,
                &i.impact,
                &components,
                &i.scheduled_for_ms,
                &i.scheduled_until_ms,
                &i.created_at_ms,
            ],
        )
        .await
        .map_err(db)?;
        for u in &i.updates {
            insert_update(&tx, u).await?;
        }
        tx.commit().await.map_err(db)
    }

    async fn add_incident_update(
        &self,
        update: IncidentUpdateRecord,
        expected_status: &str,
        resolved: bool,
    ) -> Result<bool, StoreError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await.map_err(db)?;
        let moved = tx
            .execute(
                sql::MOVE_INCIDENT,
                &[
                    &update.incident_id,
                    &update.status,
                    &update.created_at_ms,
                    &resolved,
                    &expected_status,
                ],
            )
            .await
            .map_err(db)?;
        if moved == 1 {
            insert_update(&tx, &update).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(moved == 1)
    }

    async fn incident(&self, id: &str) -> Result<Option<IncidentRecord>, StoreError> {
        let c = self.conn().await?;
        let row = c
            .query_opt(
                &format!(
                    "SELECT {} FROM status_incidents WHERE id = $1",
                    sql::INCIDENT_COLUMNS
                ),
                &[&id],
            )
            .await
            .map_err(db)?;
        match row.as_ref().map(incident_row).transpose()? {
            Some(i) => Ok(Some(with_updates(&c, i).await?)),
            None => Ok(None),
        }
    }

    async fn recent_incidents(
        &self,
        since_ms: i64,
        limit: u32,
    ) -> Result<Vec<IncidentRecord>, StoreError> {
        let c = self.conn().await?;
        let cols = sql::INCIDENT_COLUMNS;
        let rows = c
            .query(
                &format!(
                    "SELECT {cols} FROM status_incidents WHERE resolved_at_ms IS NULL
                     UNION
                     SELECT {cols} FROM status_incidents WHERE updated_at_ms >= $1
                     ORDER BY created_at_ms DESC, id DESC LIMIT $2"
                ),
                &[&since_ms, &i64::from(limit)],
            )
            .await
            .map_err(db)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(with_updates(&c, incident_row(r)?).await?);
        }
        Ok(out)
    }
}
