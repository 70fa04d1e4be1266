//! The queues background workers drain: webhook deliveries and mail. Every
//! queue is claimed the same way — a [`Lease`] on due rows, held by one
//! named worker until it records the outcome or the lease lapses — so one
//! worker loop (`lendhub-jobs`) serves them all.

use async_trait::async_trait;
use lendhub_domain::sandbox::ids::PublishedId;
use lendhub_domain::webhooks::endpoint::{Delivery, WebhookEndpoint};

use crate::error::StoreError;
use crate::public::MailRecord;

/// A request to lease due work. Due times are on their owner's clock: a row
/// is due when `due_ms <= due_before_ms + the owner's clock offset`,
/// `due_before_ms` being the service clock's now. The lease reads real time,
/// since it only guards against a crashed worker.
#[derive(Clone, Debug)]
pub struct Lease {
    /// Who holds the lease: the instance's worker name. A restarted
    /// instance gives back what its previous run held
    /// ([`JobStore::release_leases`]) instead of waiting for it to lapse.
    pub holder: String,
    pub due_before_ms: i64,
    pub real_now_ms: i64,
    pub lease_until_ms: i64,
    pub limit: u32,
}

#[derive(Clone, Debug)]
pub struct ClaimedDelivery {
    pub delivery: Delivery,
    pub url: String,
    pub sealed_secret: Vec<u8>,
    /// The secret a rotation replaced, while its overlap lasts: deliveries
    /// carry a signature by each.
    pub previous_sealed_secret: Option<Vec<u8>>,
    pub body: String,
    /// The endpoint as stored when the delivery was claimed.
    pub endpoint: WebhookEndpoint,
    /// The owner's test-clock offset when the delivery was claimed: the
    /// delivery's times (and its retry's) are on that clock.
    pub clock_offset_ms: i64,
    /// Since when every attempt at the endpoint has failed (owner's clock);
    /// `None` while it answers.
    pub failing_since_ms: Option<i64>,
}

/// What an attempt heard of the receiver beyond its status, for the
/// dashboard: how long it took to answer and the first bytes it answered
/// with. Empty when it did not answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Heard {
    pub latency_ms: Option<i64>,
    pub excerpt: Option<String>,
}

#[derive(Clone, Debug)]
pub enum DeliveryResult {
    Delivered {
        id: i64,
        status: u16,
        heard: Heard,
        at_ms: i64,
        /// The endpoint was failing when the delivery was claimed: this
        /// answer ends its run of failures. (A healthy endpoint's row is
        /// not touched: one statement less per delivery.)
        ends_failures: bool,
    },
    /// `retry_at_ms: None` means the schedule is exhausted.
    Failed {
        id: i64,
        status: Option<u16>,
        heard: Heard,
        error: String,
        retry_at_ms: Option<i64>,
        at_ms: i64,
    },
}

impl DeliveryResult {
    /// The attempt as the dashboard's charts count it: the delivery, the
    /// day (on its owner's clock, as `at_ms` is) and whether it got through.
    pub fn counted(&self) -> (i64, String, &'static str) {
        use lendhub_domain::billing::usage::{Metric, day};
        let (id, at_ms, metric) = match self {
            DeliveryResult::Delivered { id, at_ms, .. } => (*id, *at_ms, Metric::DeliveriesOk),
            DeliveryResult::Failed { id, at_ms, .. } => (*id, *at_ms, Metric::DeliveriesFailed),
        };
        (
            id,
            day(lendhub_domain::clock::from_unix_ms(at_ms)),
            metric.as_str(),
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClaimedMail {
    pub mail: MailRecord,
    /// Attempts before this one.
    pub attempts: u32,
    pub first_due_ms: i64,
}

#[derive(Clone, Debug)]
pub enum MailResult {
    Sent {
        id: String,
        at_ms: i64,
    },
    /// `retry_at_ms: None`: given up.
    Failed {
        id: String,
        error: String,
        retry_at_ms: Option<i64>,
    },
}

/// One event's delivery to an endpoint and its latest attempt, as the
/// dashboard shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryView {
    pub id: i64,
    pub event_id: String,
    pub event_type: String,
    /// `pending`, `delivered` or `failed`.
    pub state: String,
    pub attempt: i64,
    pub last_status: Option<i64>,
    pub last_error: Option<String>,
    pub updated_at_ms: i64,
    pub last_latency_ms: Option<i64>,
    /// The first bytes of the receiver's last answer, as text.
    pub last_response: Option<String>,
}

/// The queues, as named to [`JobStore::release_leases`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobQueue {
    Deliveries,
    Mail,
}

impl JobQueue {
    /// The table the queue's rows live in: the same in every backend.
    pub fn table(self) -> &'static str {
        match self {
            JobQueue::Deliveries => "deliveries",
            JobQueue::Mail => "mail_outbox",
        }
    }
}

#[async_trait]
pub trait JobStore: Send + Sync {
    /// Leases due deliveries to enabled endpoints, soonest due first.
    async fn claim_deliveries(&self, lease: &Lease) -> Result<Vec<ClaimedDelivery>, StoreError>;
    /// Records the attempt and the endpoint's health with it: a success
    /// ends its run of failures, a failure starts one if none is under way.
    async fn finish_delivery(&self, result: DeliveryResult) -> Result<(), StoreError>;

    /// Leases due notifications, soonest due first.
    async fn claim_mail(&self, lease: &Lease) -> Result<Vec<ClaimedMail>, StoreError>;
    async fn finish_mail(&self, result: MailResult) -> Result<(), StoreError>;

    /// Gives back every lease `holder` still holds in `queue`: what a worker
    /// was attempting when its process died becomes due at once. Per queue,
    /// so one worker starting never frees another's fresh leases.
    async fn release_leases(&self, queue: JobQueue, holder: &str) -> Result<u64, StoreError>;

    /// The endpoint's deliveries, newest first, at most `limit`.
    async fn endpoint_deliveries(
        &self,
        owner: &lendhub_domain::tenant::Tenant,
        endpoint_id: &PublishedId,
        limit: u32,
    ) -> Result<Vec<DeliveryView>, StoreError>;
}
