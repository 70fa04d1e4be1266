//! Webhook delivery as a job queue: each job is one event to one endpoint,
//! attempted by the shared worker loop (`lendhub-jobs`) on the hub
//! document's schedule. A delivery's times are on its owner's test clock.
//! An endpoint is disabled after ~72 h of continuous failure of the
//! endpoint — every attempt at it failing, whatever the event — not when one
//! delivery runs out its schedule while others get through.

use std::sync::Arc;

use async_trait::async_trait;
use lendhub_domain::clock::{from_unix_ms, unix_ms};
use lendhub_domain::crypto::MasterKey;
use lendhub_domain::retry::Backoff;
use lendhub_domain::webhooks::endpoint::{
    DeliverySchedule, EndpointStatus, WebhookEndpoint, failure_disables,
};
use lendhub_jobs::{Attempt, Failure, Outcome, Queue, Timing};
use lendhub_store::{
    ClaimedDelivery, CommitError, DeliveryResult, EventWrite, Heard, JobQueue, JobStore, Lease,
    StoreError, UnitOfWork, Write, WriteSet,
};
use time::OffsetDateTime;
use tokio::sync::Notify;

use crate::SECRET_PURPOSE;
use crate::sender::Sender;

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

/// What an endpoint's disabling also writes, in the same commit: the event
/// that reports it (its envelope and the endpoint's JSON belong to the
/// surface that owns them) and any notice to the owner.
pub trait EndpointEvents: Send + Sync + 'static {
    fn disabled(
        &self,
        endpoint: &WebhookEndpoint,
        at: OffsetDateTime,
    ) -> Result<Vec<Write>, String>;
}

/// Each owner's endpoint events rendered by its own surface: the sandbox
/// for its clients, the hub for partners.
pub struct BySurface {
    pub sandbox: Arc<dyn EndpointEvents>,
    pub hub: Arc<dyn EndpointEvents>,
}

impl EndpointEvents for BySurface {
    fn disabled(
        &self,
        endpoint: &WebhookEndpoint,
        at: OffsetDateTime,
    ) -> Result<Vec<Write>, String> {
        match endpoint.owner.kind() {
            lendhub_domain::tenant::TenantKind::SandboxClient(_) => {
                self.sandbox.disabled(endpoint, at)
            }
            lendhub_domain::tenant::TenantKind::Partner { .. } => self.hub.disabled(endpoint, at),
        }
    }
}

pub struct Deliveries {
    pub jobs: Arc<dyn JobStore>,
    /// Disabling an endpoint is a unit of work with its event.
    pub writes: Arc<dyn UnitOfWork>,
    pub sender: Sender,
    pub master_key: MasterKey,
    /// Poked after an endpoint is disabled: its event has deliveries too.
    pub wake: Arc<Notify>,
    /// Poked after an endpoint is disabled: its owner may be mailed.
    pub mail_wake: Arc<Notify>,
    pub endpoint_events: Arc<dyn EndpointEvents>,
}

/// A claimed delivery, and what its attempt heard of the receiver beyond
/// the status (kept here because the shared loop passes on only the
/// status), for the record of the attempt.
pub struct Job {
    claimed: ClaimedDelivery,
    heard: std::sync::OnceLock<Heard>,
}

fn real_now_ms() -> i64 {
    unix_ms(OffsetDateTime::now_utc())
}

#[async_trait]
impl Queue for Deliveries {
    type Job = Job;
    const NAME: &'static str = "webhook deliveries";

    async fn claim(&self, lease: &Lease) -> Result<Vec<Job>, StoreError> {
        let claimed = self.jobs.claim_deliveries(lease).await?;
        Ok(claimed
            .into_iter()
            .map(|claimed| Job {
                claimed,
                heard: std::sync::OnceLock::new(),
            })
            .collect())
    }

    fn timing(&self, job: &Job) -> Timing {
        let claimed = &job.claimed;
        let d = &claimed.delivery;
        Timing {
            first_due_ms: unix_ms(d.first_due),
            due_ms: unix_ms(d.due),
            attempt: d.attempt,
            clock_offset_ms: claimed.clock_offset_ms,
        }
    }

    async fn attempt(&self, job: &Job) -> Attempt {
        let claimed = &job.claimed;
        let open = |sealed: &[u8]| {
            self.master_key
                .open(SECRET_PURPOSE, sealed)
                .map(|s| String::from_utf8_lossy(&s).into_owned())
        };
        let secrets = std::iter::once(open(&claimed.sealed_secret))
            .chain(claimed.previous_sealed_secret.as_deref().map(open))
            .collect::<Result<Vec<String>, _>>();
        let attempt = match secrets {
            Ok(secrets) => {
                let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
                // The signature timestamp is real time: receivers check it against their own clock.
                self.sender
                    .deliver(&claimed.url, &secrets, &claimed.body, real_now_ms() / 1000)
                    .await
            }
            Err(e) => crate::sender::Attempt {
                status: None,
                error: Some(e.to_string()),
                duration_ms: 0,
                latency_ms: None,
                excerpt: None,
            },
        };
        let _ = job.heard.set(Heard {
            latency_ms: attempt
                .latency_ms
                .map(|ms| i64::try_from(ms).unwrap_or(i64::MAX)),
            excerpt: attempt.excerpt.clone(),
        });
        if attempt.succeeded() {
            metrics::counter!(DELIVERIES, "outcome" => DELIVERED).increment(1);
            return Attempt::Done {
                status: attempt.status,
            };
        }
        metrics::counter!(DELIVERIES, "outcome" => FAILED).increment(1);
        Attempt::Failed(Failure {
            error: attempt.error.unwrap_or_default(),
            status: attempt.status,
        })
    }

    fn backoff(&self) -> &dyn Backoff {
        &DeliverySchedule
    }

    async fn record(&self, job: Job, outcome: Outcome, now: OffsetDateTime) {
        let Job { claimed, heard } = job;
        let heard = heard.into_inner().unwrap_or_default();
        let d = &claimed.delivery;
        let at_ms = unix_ms(now);
        let (failure, retry_at_ms) = match outcome {
            Outcome::Done { status } => {
                let delivered = DeliveryResult::Delivered {
                    id: d.id,
                    // A success always has a status; 200 only guards the type.
                    status: status.unwrap_or(200),
                    heard,
                    at_ms,
                    ends_failures: claimed.failing_since_ms.is_some(),
                };
                if let Err(e) = self.jobs.finish_delivery(delivered).await {
                    tracing::warn!(error = %e, delivery = d.id, "could not record a webhook delivery");
                }
                return;
            }
            Outcome::Retry { at_ms, failure } => {
                tracing::info!(delivery = d.id, event = %d.event_id, endpoint = %d.endpoint_id,
                    attempt = d.attempt, error = %failure.error, retry_at = ?from_unix_ms(at_ms),
                    "webhook delivery failed");
                (failure, Some(at_ms))
            }
            Outcome::GiveUp { failure } => {
                tracing::info!(delivery = d.id, event = %d.event_id, endpoint = %d.endpoint_id,
                    attempt = d.attempt, error = %failure.error, "webhook delivery failed; schedule exhausted");
                (failure, None)
            }
        };
        let since = claimed.failing_since_ms.map(from_unix_ms);
        if failure_disables(since, now) && !self.disable(&claimed, now).await {
            // Not recorded: the lease lapses, the attempt runs again, and
            // disabling is tried again.
            return;
        }
        let result = DeliveryResult::Failed {
            id: d.id,
            status: failure.status,
            heard,
            error: failure.error,
            retry_at_ms,
            at_ms,
        };
        if let Err(e) = self.jobs.finish_delivery(result).await {
            // The lease lapses and another pass retries it: at-least-once.
            tracing::warn!(error = %e, delivery = d.id, "could not record a webhook delivery outcome");
        }
    }

    async fn release(&self, holder: &str) -> Result<u64, StoreError> {
        self.jobs.release_leases(JobQueue::Deliveries, holder).await
    }
}

impl Deliveries {
    /// The endpoint has failed for ~72 h on the owner's clock: it is
    /// disabled, its pending deliveries end, and the owner gets a
    /// `webhook_endpoint.disabled` event, all in one commit — unless it
    /// answered in the meantime. `false` if that could not be stored.
    async fn disable(&self, claimed: &ClaimedDelivery, now: OffsetDateTime) -> bool {
        let endpoint = &claimed.endpoint;
        let Some(failing_since_ms) = claimed.failing_since_ms else {
            return true;
        };
        let disabled = WebhookEndpoint {
            status: EndpointStatus::Disabled,
            ..endpoint.clone()
        };
        let also = match self.endpoint_events.disabled(&disabled, now) {
            Ok(writes) => writes,
            Err(e) => {
                tracing::error!(error = %e, endpoint = %endpoint.id, "could not render the endpoint's disabling");
                return false;
            }
        };
        let mut writes = WriteSet::default();
        writes.push(EventWrite::DisableFailingEndpoint {
            endpoint: disabled,
            failing_since_ms,
        });
        for write in also {
            writes.push(write);
        }
        match self.writes.commit(writes).await {
            Ok(()) => {
                tracing::warn!(endpoint = %endpoint.id, owner = %endpoint.owner,
                    "webhook endpoint disabled after 72 h of failed deliveries");
                self.wake.notify_one();
                self.mail_wake.notify_one();
                true
            }
            // Already disabled by another delivery, or it answered since.
            Err(CommitError::Conflict) => true,
            Err(e) => {
                tracing::warn!(error = %e, endpoint = %endpoint.id, "could not disable a webhook endpoint");
                false
            }
        }
    }
}
