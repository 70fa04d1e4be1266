//! The mail outbox worker: claims due notifications, sends them, and records
//! each outcome with its next attempt. State lives in the database, so mail
//! survives restarts and outages, and several instances share one outbox.

use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::clock::{Clock, unix_ms};
use lendhub_store::{ClaimedMail, MailClaim, MailResult, Store};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::retry::next_attempt_ms;
use crate::smtp::Mailer;

const BATCH: u32 = 16;

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
const IDLE_POLL: Duration = Duration::from_secs(1);
/// A claim outlives the SMTP timeout, so a live worker's send is never
/// taken over; a dead worker's claims lapse after this.
const LEASE: Duration = Duration::from_secs(60);

pub struct MailOutbox {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub mailer: Mailer,
    /// Poked after an enquiry queues a notification, or when the clock moves.
    pub wake: Arc<Notify>,
}

fn real_now_ms() -> i64 {
    unix_ms(time::OffsetDateTime::now_utc())
}

impl MailOutbox {
    /// Runs until `stop` is cancelled; a send in progress finishes first.
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
            for mail in claimed {
                self.attempt(mail).await;
            }
        }
    }

    async fn claim(&self) -> Vec<ClaimedMail> {
        let real = real_now_ms();
        let claim = MailClaim {
            due_before_ms: self.clock.now_ms(),
            real_now_ms: real,
            lease_until_ms: real + LEASE.as_millis() as i64,
            limit: BATCH,
        };
        match self.store.claim_mail(claim).await {
            Ok(claimed) => claimed,
            Err(e) => {
                tracing::warn!(error = %e, "could not claim enquiry notifications");
                tokio::time::sleep(IDLE_POLL).await;
                Vec::new()
            }
        }
    }

    async fn attempt(&self, claimed: ClaimedMail) {
        let mail = &claimed.mail;
        let sent = self
            .mailer
            .send(&mail.recipient, &mail.subject, &mail.body)
            .await;
        let now_ms = self.clock.now_ms();
        let result = match sent {
            Ok(()) => {
                metrics::counter!(NOTIFICATIONS, "outcome" => SENT).increment(1);
                tracing::info!(mail = %mail.id, enquiry = %mail.enquiry_id, "enquiry notification sent");
                MailResult::Sent {
                    id: mail.id.clone(),
                    at_ms: now_ms,
                }
            }
            Err(error) => {
                metrics::counter!(NOTIFICATIONS, "outcome" => FAILED).increment(1);
                let attempts = claimed.attempts + 1;
                let retry_at_ms = next_attempt_ms(claimed.first_due_ms, attempts, now_ms);
                if retry_at_ms.is_none() {
                    tracing::error!(mail = %mail.id, enquiry = %mail.enquiry_id, attempts, %error,
                        "giving up on an enquiry notification; the enquiry itself is stored");
                } else {
                    tracing::warn!(mail = %mail.id, enquiry = %mail.enquiry_id, attempts, %error,
                        "enquiry notification failed; will retry");
                }
                MailResult::Failed {
                    id: mail.id.clone(),
                    error,
                    retry_at_ms,
                }
            }
        };
        if let Err(e) = self.store.finish_mail(result).await {
            // The lease lapses and another pass retries it: at-least-once.
            tracing::warn!(error = %e, mail = %mail.id, "could not record a notification outcome");
        }
    }
}
