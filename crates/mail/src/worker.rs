//! Enquiry notifications as a job queue: the shared worker loop
//! (`lendhub-jobs`) claims due notifications, this queue sends them over
//! SMTP, and each outcome is stored with its next attempt. State lives in
//! the database, so mail survives restarts and outages, and several
//! instances share one outbox.

use std::sync::Arc;

use async_trait::async_trait;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::public::enquiry::NOTIFICATION_RETRY;
use lendhub_domain::retry::Backoff;
use lendhub_jobs::{Attempt, Failure, Outcome, Queue, Timing};
use lendhub_store::{ClaimedMail, JobQueue, JobStore, Lease, MailResult, StoreError};
use time::OffsetDateTime;

use crate::smtp::Mailer;

const NOTIFICATIONS: &str = "enquiry_notifications_total";
const SENT: &str = "sent";
const FAILED: &str = "failed";

/// Registers the notification counters at zero, so dashboards and alerts
/// see them before the first mail. Call once the recorder is installed.
pub fn register_metrics() {
    metrics::describe_counter!(NOTIFICATIONS, "Enquiry notification attempts, by outcome.");
    for outcome in [SENT, FAILED] {
        metrics::counter!(NOTIFICATIONS, "outcome" => outcome).increment(0);
    }
}

pub struct Notifications {
    pub jobs: Arc<dyn JobStore>,
    pub mailer: Mailer,
}

#[async_trait]
impl Queue for Notifications {
    type Job = ClaimedMail;
    const NAME: &'static str = "enquiry notifications";

    async fn claim(&self, lease: &Lease) -> Result<Vec<ClaimedMail>, StoreError> {
        self.jobs.claim_mail(lease).await
    }

    fn timing(&self, claimed: &ClaimedMail) -> Timing {
        Timing {
            first_due_ms: claimed.first_due_ms,
            due_ms: claimed.mail.due_ms,
            attempt: claimed.attempts + 1,
            clock_offset_ms: 0,
        }
    }

    async fn attempt(&self, claimed: &ClaimedMail) -> Attempt {
        let mail = &claimed.mail;
        match self
            .mailer
            .send(&mail.recipient, &mail.subject, &mail.body)
            .await
        {
            Ok(()) => {
                metrics::counter!(NOTIFICATIONS, "outcome" => SENT).increment(1);
                tracing::info!(mail = %mail.id, enquiry = ?mail.enquiry_id, "notification sent");
                Attempt::Done { status: None }
            }
            Err(error) => {
                metrics::counter!(NOTIFICATIONS, "outcome" => FAILED).increment(1);
                Attempt::Failed(Failure {
                    error: error.to_string(),
                    status: None,
                })
            }
        }
    }

    fn backoff(&self) -> &dyn Backoff {
        &NOTIFICATION_RETRY
    }

    async fn record(&self, claimed: ClaimedMail, outcome: Outcome, now: OffsetDateTime) {
        let mail = &claimed.mail;
        let attempts = claimed.attempts + 1;
        let result = match outcome {
            Outcome::Done { .. } => MailResult::Sent {
                id: mail.id.clone(),
                at_ms: unix_ms(now),
            },
            Outcome::Retry { at_ms, failure } => {
                tracing::warn!(mail = %mail.id, enquiry = ?mail.enquiry_id, attempts, error = %failure.error,
                    "enquiry notification failed; will retry");
                MailResult::Failed {
                    id: mail.id.clone(),
                    error: failure.error,
                    retry_at_ms: Some(at_ms),
                }
            }
            Outcome::GiveUp { failure } => {
                tracing::error!(mail = %mail.id, enquiry = ?mail.enquiry_id, attempts, error = %failure.error,
                    "giving up on an enquiry notification; the enquiry itself is stored");
                MailResult::Failed {
                    id: mail.id.clone(),
                    error: failure.error,
                    retry_at_ms: None,
                }
            }
        };
        if let Err(e) = self.jobs.finish_mail(result).await {
            // The lease lapses and another pass retries it: at-least-once.
            tracing::warn!(error = %e, mail = %mail.id, "could not record a notification outcome");
        }
    }

    async fn release(&self, holder: &str) -> Result<u64, StoreError> {
        self.jobs.release_leases(JobQueue::Mail, holder).await
    }
}
