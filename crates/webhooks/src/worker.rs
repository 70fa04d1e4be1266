//! The outbox worker: leases due deliveries, attempts them concurrently, and
//! records each outcome with its next retry time from the domain schedule.
//! State lives in the database, so deliveries survive restarts and several
//! workers can share one outbox. A delivery's times are on its owner's test
//! clock; when its last attempt fails, the endpoint is disabled.

use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::clock::{Clock, from_unix_ms, unix_ms};
use lendhub_domain::crypto::MasterKey;
use lendhub_domain::events::Event;
use lendhub_domain::test_clock::ClientClock;
use lendhub_domain::webhook::{EndpointStatus, WebhookEndpoint, next_attempt_at};
use lendhub_store::{
    ClaimedDelivery, CommitError, DeliveryClaim, DeliveryResult, Store, Write, WriteSet,
};
use time::OffsetDateTime;
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::SECRET_PURPOSE;
use crate::sender::Sender;

const BATCH: u32 = 64;

const DELIVERIES: &str = "webhook_deliveries_total";
const DELIVERED: &str = "delivered";
const FAILED: &str = "failed";

/// Registers the delivery counters at zero, so dashboards and alerts see
/// them before the first delivery. Call once the recorder is installed.
pub fn register_metrics() {
    metrics::describe_counter!(DELIVERIES, "Webhook delivery attempts, by outcome.");
    for outcome in [DELIVERED, FAILED] {
        metrics::counter!(DELIVERIES, "outcome" => outcome).increment(0);
    }
}
const IDLE_POLL: Duration = Duration::from_secs(1);

/// Renders the event that reports an endpoint's disabling: the event
/// envelope and the endpoint's JSON belong to the surface that owns them.
pub trait EndpointEvents: Send + Sync + 'static {
    fn disabled(&self, endpoint: &WebhookEndpoint, at: OffsetDateTime) -> Result<Event, String>;
}

pub struct Outbox {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub sender: Sender,
    pub master_key: MasterKey,
    /// Poked after a commit queues deliveries, or when the clock moves.
    pub wake: Arc<Notify>,
    /// How long a claim lasts; a worker never re-claims its own in-flight
    /// deliveries, so this only matters when a worker dies mid-attempt.
    pub lease: Duration,
    pub endpoint_events: Arc<dyn EndpointEvents>,
}

fn real_now_ms() -> i64 {
    unix_ms(time::OffsetDateTime::now_utc())
}

impl Outbox {
    /// Runs until `stop` is cancelled; in-flight attempts finish first.
    pub async fn run(self: Arc<Self>, stop: CancellationToken) {
        while !stop.is_cancelled() {
            let claimed = self.claim().await;
            if claimed.is_empty() {
                tokio::select! {
                    _ = self.wake.notified() => continue,
                    _ = tokio::time::sleep(IDLE_POLL) => continue,
                    _ = stop.cancelled() => return,
                }
            }
            let mut attempts = JoinSet::new();
            for d in claimed {
                let me = self.clone();
                attempts.spawn(async move { me.attempt(d).await });
            }
            while attempts.join_next().await.is_some() {}
        }
    }

    async fn claim(&self) -> Vec<ClaimedDelivery> {
        let real = real_now_ms();
        let claim = DeliveryClaim {
            due_before_ms: self.clock.now_ms(),
            real_now_ms: real,
            lease_until_ms: real + self.lease.as_millis() as i64,
            limit: BATCH,
        };
        match self.store.claim_deliveries(claim).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "could not claim webhook deliveries");
                tokio::time::sleep(IDLE_POLL).await;
                Vec::new()
            }
        }
    }

    async fn attempt(&self, claimed: ClaimedDelivery) {
        let d = &claimed.delivery;
        let attempt = match self.master_key.open(SECRET_PURPOSE, &claimed.sealed_secret) {
            Ok(secret) => {
                let secret = String::from_utf8_lossy(&secret).into_owned();
                // The signature timestamp is real time: receivers check it against their own clock.
                self.sender
                    .deliver(&claimed.url, &secret, &claimed.body, real_now_ms() / 1000)
                    .await
            }
            Err(e) => crate::sender::Attempt {
                status: None,
                error: Some(e.to_string()),
                duration_ms: 0,
            },
        };
        // The owner's clock: retries are scheduled, and the 72 h deadline
        // reached, on the same clock the delivery was queued on.
        let now = ClientClock::new(claimed.clock_offset_ms).now(self.clock.now());
        let at_ms = unix_ms(now);
        let result = if attempt.succeeded() {
            metrics::counter!(DELIVERIES, "outcome" => DELIVERED).increment(1);
            DeliveryResult::Delivered {
                id: d.id,
                status: attempt.status.unwrap_or(200),
                at_ms,
            }
        } else {
            metrics::counter!(DELIVERIES, "outcome" => FAILED).increment(1);
            // Retries are timed from when this attempt was due, or from now if it ran late.
            let base = if d.due > now { d.due } else { now };
            let jitter = rand::random_range(-1.0..=1.0);
            let retry =
                next_attempt_at(d.first_due, base.max(d.first_due), d.attempt, jitter).map(unix_ms);
            tracing::info!(delivery = d.id, event = %d.event_id, endpoint = %d.endpoint_id, attempt = d.attempt,
                error = attempt.error.as_deref().unwrap_or(""), retry_at = ?retry.map(from_unix_ms), "webhook delivery failed");
            if retry.is_none() && !self.disable(&claimed.endpoint, now).await {
                // Not recorded: the lease lapses, the attempt runs again, and
                // disabling is tried again. The endpoint is never left
                // enabled behind a delivery marked as given up.
                return;
            }
            DeliveryResult::Failed {
                id: d.id,
                status: attempt.status,
                error: attempt.error.unwrap_or_default(),
                retry_at_ms: retry,
                at_ms,
            }
        };
        if let Err(e) = self.store.finish_delivery(result).await {
            // The lease lapses and another pass retries it: at-least-once.
            tracing::warn!(error = %e, delivery = d.id, "could not record a webhook delivery outcome");
        }
    }

    /// The delivery's schedule ran out (~72 h of failures on the owner's
    /// clock): the endpoint is disabled, its pending deliveries end, and the
    /// owner gets a `webhook_endpoint.disabled` event, all in one commit.
    /// `false` if that could not be stored.
    async fn disable(&self, endpoint: &WebhookEndpoint, now: OffsetDateTime) -> bool {
        let disabled = WebhookEndpoint {
            status: EndpointStatus::Disabled,
            ..endpoint.clone()
        };
        let event = match self.endpoint_events.disabled(&disabled, now) {
            Ok(event) => event,
            Err(e) => {
                tracing::error!(error = %e, endpoint = %endpoint.id, "could not render the endpoint's disabling");
                return false;
            }
        };
        let mut writes = WriteSet::default();
        writes
            .push(Write::SetEndpointStatus {
                endpoint: disabled,
                from: EndpointStatus::Enabled,
            })
            .push(Write::InsertEvent(event));
        match self.store.commit(writes).await {
            Ok(()) => {
                tracing::warn!(endpoint = %endpoint.id, owner = %endpoint.owner,
                    "webhook endpoint disabled: its delivery schedule ran out");
                self.wake.notify_one();
                true
            }
            // Already disabled (another delivery's schedule ran out first).
            Err(CommitError::Conflict) => true,
            Err(e) => {
                tracing::warn!(error = %e, endpoint = %endpoint.id, "could not disable a webhook endpoint");
                false
            }
        }
    }
}
