//! The event log, read a page at a time, and the webhook endpoints events
//! are delivered to.

use async_trait::async_trait;
use lendhub_domain::sandbox::events::{Event, EventType};
use lendhub_domain::sandbox::ids::PublishedId;
use lendhub_domain::tenant::Tenant;

use crate::context::events::*;
use crate::error::StoreError;
use crate::exec::{self, Backend, Exec, Row};
use crate::params;
use crate::sql::{self, sandbox};

/// Columns: id, owner, type, created_at_ms, body.
fn event(r: &Row) -> Result<Event, StoreError> {
    let kind: String = r.get(2)?;
    Ok(Event {
        id: PublishedId::from_stored(r.get(0)?),
        owner: Tenant::from_stored(r.get(1)?),
        event_type: EventType::parse(&kind)
            .ok_or_else(|| StoreError::Internal("unknown stored event type".into()))?,
        created_at: lendhub_domain::clock::from_unix_ms(r.get(3)?),
        body: r.get(4)?,
    })
}

fn endpoint(r: &Row) -> Result<EndpointRecord, StoreError> {
    Ok(EndpointRecord {
        endpoint: r.json(0)?,
        sealed_secret: r.get(1)?,
    })
}

#[async_trait]
impl<B: Backend> EventStore for B {
    async fn event(&self, owner: &Tenant, id: &PublishedId) -> Result<Option<Event>, StoreError> {
        self.one(sandbox::EVENT, &params![id.as_str(), owner], event)
            .await
    }

    /// Newest first; `starting_after` pages toward older events,
    /// `ending_before` toward newer. `seq` only grows within an owner's log
    /// (on PostgreSQL it is assigned in commit order, see the migration), so
    /// a cursor never passes over an event that commits later.
    async fn list_events(
        &self,
        owner: &Tenant,
        query: &EventQuery,
    ) -> Result<EventPage, StoreError> {
        let mut c = self.connection().await?;
        let (bound, newer) = query.page.anchor();
        let seq: Option<i64> = match bound {
            Some(id) => match c.query_opt(sandbox::EVENT_SEQ, &params![id, owner]).await? {
                Some(r) => Some(r.get(0)?),
                None => return Ok(EventPage::UnknownCursor),
            },
            None => None,
        };
        let shape = sql::EventsPage {
            newer,
            cursor: seq.is_some(),
            typed: query.event_type.is_some(),
            after: query.created_after_ms.is_some(),
        };
        let events = c
            .query(
                sql::events_page(shape),
                &params![
                    owner,
                    seq,
                    &query.event_type,
                    query.page.fetch(),
                    &query.created_after_ms
                ],
            )
            .await?
            .iter()
            .map(event)
            .collect::<Result<Vec<_>, _>>()?;
        let page = query.page.page(events);
        Ok(EventPage::Page {
            events: page.items,
            has_more: page.has_more,
        })
    }

    /// The owner's newest and oldest `seq`: never reused, so additions and
    /// removals at either end change them.
    async fn event_log_position(&self, owner: &Tenant) -> Result<Option<LogPosition>, StoreError> {
        exec::remembered(self, |m| &m.log_positions, owner.as_str(), async {
            let mut c = self.connection().await?;
            let Some(r) = c
                .query_opt(sandbox::EVENT_LOG_POSITION, &params![owner])
                .await?
            else {
                return Ok(None);
            };
            let (newest, oldest): (Option<i64>, Option<i64>) = (r.get(0)?, r.get(1)?);
            Ok(newest
                .zip(oldest)
                .map(|(newest, oldest)| LogPosition { newest, oldest }))
        })
        .await
    }

    async fn endpoints(&self, owner: &Tenant) -> Result<Vec<EndpointRecord>, StoreError> {
        self.all(sandbox::ENDPOINTS_OF_OWNER, &params![owner], endpoint)
            .await
    }
}
