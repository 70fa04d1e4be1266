//! Events and the webhook endpoints they are delivered to: the log every
//! surface appends to, read a page at a time.

use async_trait::async_trait;
use lendhub_domain::sandbox::events::Event;
use lendhub_domain::sandbox::ids::PublishedId;
use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};

use crate::error::StoreError;
use crate::paging::PageQuery;
use lendhub_domain::tenant::Tenant;

#[derive(Clone, Debug)]
pub struct EndpointRecord {
    pub endpoint: WebhookEndpoint,
    pub sealed_secret: Vec<u8>,
}

/// A page of an owner's events, optionally of one type and only those
/// created after a moment.
#[derive(Clone, Debug, Default)]
pub struct EventQuery {
    pub page: PageQuery,
    pub event_type: Option<String>,
    /// Only events created strictly after this (milliseconds).
    pub created_after_ms: Option<i64>,
}

/// The sequence numbers of an owner's newest and oldest events; they are
/// never reused, so a change to either end of the log changes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LogPosition {
    pub newest: i64,
    pub oldest: i64,
}

#[derive(Clone, Debug)]
pub enum EventPage {
    Page {
        events: Vec<Event>,
        has_more: bool,
    },
    /// The cursor names no event of this owner.
    UnknownCursor,
}

/// The events context's row changes within a [`crate::WriteSet`].
#[derive(Clone, Debug)]
pub enum EventWrite {
    /// Registers an endpoint if its owner has fewer than `max_per_owner`;
    /// otherwise `Conflict`. The slot is taken in the same transaction, so
    /// concurrent registrations cannot pass the limit together.
    InsertEndpoint {
        record: EndpointRecord,
        max_per_owner: u32,
    },
    /// Also queues one delivery per endpoint of the owner that receives it
    /// (`lendhub_domain::webhooks::endpoint::Subscription::receives`).
    InsertEvent(Event),
    /// Stores `endpoint` (its status changed) if the stored status is still
    /// `from`; otherwise `Conflict`. Disabling also ends the endpoint's
    /// pending deliveries (`failed`): a disabled endpoint is not attempted.
    SetEndpointStatus {
        endpoint: WebhookEndpoint,
        from: EndpointStatus,
    },
    /// Disables `endpoint` if it is still enabled and has been failing
    /// since `failing_since_ms` or earlier (an answer since then ends the
    /// run of failures); otherwise `Conflict`. Ends its pending deliveries.
    DisableFailingEndpoint {
        endpoint: WebhookEndpoint,
        failing_since_ms: i64,
    },
    /// Stores the endpoint's new settings (URL, events, description,
    /// metadata, API version); `Conflict` if it no longer exists.
    UpdateEndpoint(WebhookEndpoint),
    /// Removes the endpoint, frees its slot and ends its pending
    /// deliveries; `Conflict` if it no longer exists.
    DeleteEndpoint { id: String, owner: Tenant },
    /// Queues the stored event `event_id` again, once to each endpoint
    /// (a replay): new deliveries, due at `at_ms`, of the same bytes.
    QueueDeliveries {
        event_id: String,
        owner: Tenant,
        endpoint_ids: Vec<String>,
        at_ms: i64,
    },
    /// Signs with `sealed_secret` from now on, and with the secret it
    /// replaces too until `previous_expires_at_ms` (real time); `Conflict`
    /// if the endpoint no longer exists.
    RotateEndpointSecret {
        id: String,
        owner: Tenant,
        sealed_secret: Vec<u8>,
        previous_expires_at_ms: i64,
    },
    /// A failed delivery made due at `due_ms` (owner's clock); nothing if it
    /// is not failed (a retry raced with another).
    RetryDelivery {
        id: i64,
        owner: Tenant,
        due_ms: i64,
        at_ms: i64,
    },
}

#[async_trait]
pub trait EventStore: Send + Sync {
    async fn event(&self, owner: &Tenant, id: &PublishedId) -> Result<Option<Event>, StoreError>;
    async fn list_events(
        &self,
        owner: &Tenant,
        query: &EventQuery,
    ) -> Result<EventPage, StoreError>;
    /// Where the owner's log begins and ends: it changes whenever the owner
    /// gains an event, loses its oldest (retention) or all of them (a
    /// reset); `None` when it has none. Lets a reader tell, with two index
    /// probes, whether a page it holds is current. The embedded backend
    /// answers from memory while its own writer has committed nothing since
    /// (a write by another process on the file shows within 100 ms).
    async fn event_log_position(&self, owner: &Tenant) -> Result<Option<LogPosition>, StoreError>;
    async fn endpoints(&self, owner: &Tenant) -> Result<Vec<EndpointRecord>, StoreError>;
}
