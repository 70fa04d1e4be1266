//! The status page's tables.

use async_trait::async_trait;
use lendhub_domain::ids::{HubId, IncidentId};
use lendhub_domain::status::DayTally;

use crate::context::status::*;
use crate::error::StoreError;
use crate::exec::{Backend, Exec, Row, Statement, to_json};
use crate::sql::status as sql;
use crate::{params, values};

fn day(r: &Row) -> Result<DayRecord, StoreError> {
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

fn incident(r: &Row) -> Result<IncidentRecord, StoreError> {
    Ok(IncidentRecord {
        id: r.get(0)?,
        kind: r.get(1)?,
        name: r.get(2)?,
        status: r.get(3)?,
        impact: r.get(4)?,
        components: r.json(5)?,
        scheduled_for_ms: r.get(6)?,
        scheduled_until_ms: r.get(7)?,
        created_at_ms: r.get(8)?,
        updated_at_ms: r.get(9)?,
        resolved_at_ms: r.get(10)?,
        updates: Vec::new(),
    })
}

fn update(r: &Row) -> Result<IncidentUpdateRecord, StoreError> {
    Ok(IncidentUpdateRecord {
        id: r.get(0)?,
        incident_id: r.get(1)?,
        status: r.get(2)?,
        body: r.get(3)?,
        created_at_ms: r.get(4)?,
    })
}

fn insert_update(u: &IncidentUpdateRecord) -> Statement {
    Statement::change(
        sql::INSERT_UPDATE,
        values![
            u.id.as_str(),
            u.incident_id.as_str(),
            u.status.as_str(),
            u.body.as_str(),
            u.created_at_ms
        ],
    )
}

async fn with_updates(
    c: &mut impl Exec,
    mut incident: IncidentRecord,
) -> Result<IncidentRecord, StoreError> {
    incident.updates = c
        .query(sql::UPDATES_OF, &params![&incident.id])
        .await?
        .iter()
        .map(update)
        .collect::<Result<_, _>>()?;
    Ok(incident)
}

#[async_trait]
impl<B: Backend> StatusStore for B {
    async fn add_status_tallies(&self, tallies: Vec<DayRecord>) -> Result<(), StoreError> {
        let plan = tallies
            .iter()
            .map(|d| {
                let [operational, degraded, partial, major] = counts(&d.tally);
                Statement::change(
                    sql::ADD_TALLY,
                    values![
                        d.component.as_str(),
                        d.day.as_str(),
                        operational,
                        degraded,
                        partial,
                        major
                    ],
                )
            })
            .collect();
        self.write(plan).await.map(drop)
    }

    async fn status_days(&self, since_day: &str) -> Result<Vec<DayRecord>, StoreError> {
        self.all(sql::DAYS_SINCE, &params![since_day], day).await
    }

    async fn delivery_lag_ms(&self, now_ms: i64) -> Result<Option<i64>, StoreError> {
        let mut c = self.connection().await?;
        match c.query_opt(sql::DELIVERY_LAG, &params![now_ms]).await? {
            Some(r) => r.get(0),
            None => Ok(None),
        }
    }

    async fn create_incident(&self, i: IncidentRecord) -> Result<(), StoreError> {
        let mut plan = vec![Statement::change(
            sql::INSERT_INCIDENT,
            values![
                i.id.as_str(),
                i.kind.as_str(),
                i.name.as_str(),
                i.status.as_str(),
                i.impact.as_str(),
                to_json(&i.components)?,
                i.scheduled_for_ms,
                i.scheduled_until_ms,
                i.created_at_ms
            ],
        )];
        plan.extend(i.updates.iter().map(insert_update));
        self.write(plan).await.map(drop)
    }

    async fn add_incident_update(
        &self,
        update: IncidentUpdateRecord,
        expected_status: &str,
        resolved: bool,
    ) -> Result<bool, StoreError> {
        let plan = vec![
            Statement::change(
                sql::MOVE_INCIDENT,
                values![
                    update.incident_id.as_str(),
                    update.status.as_str(),
                    update.created_at_ms,
                    resolved,
                    expected_status
                ],
            ),
            insert_update(&update).if_changed(),
        ];
        let done = self.write(plan).await?;
        Ok(done.first().is_some_and(|d| d.changed == 1))
    }

    async fn incident(&self, id: &IncidentId) -> Result<Option<IncidentRecord>, StoreError> {
        let mut c = self.connection().await?;
        match c.query_opt(sql::INCIDENT, &params![id.as_str()]).await? {
            Some(r) => Ok(Some(with_updates(&mut c, incident(&r)?).await?)),
            None => Ok(None),
        }
    }

    async fn recent_incidents(
        &self,
        since_ms: i64,
        limit: u32,
    ) -> Result<Vec<IncidentRecord>, StoreError> {
        let mut c = self.connection().await?;
        let rows = c
            .query(sql::RECENT_INCIDENTS, &params![since_ms, limit])
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(with_updates(&mut c, incident(r)?).await?);
        }
        Ok(out)
    }
}
