//! The loop itself.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use lendhub_domain::clock::{Clock, unix_ms};
use lendhub_domain::retry::Attempted;
use lendhub_domain::sandbox::test_clock::ClientClock;
use lendhub_store::Lease;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::{Attempt, Outcome, Queue};

#[derive(Clone, Debug)]
pub struct Settings {
    /// Names this instance's leases. Stable across restarts of one instance
    /// and distinct between instances sharing a database.
    pub holder: String,
    /// How long a claim lasts. A live worker never re-claims its own
    /// in-flight jobs, so this only matters when a worker dies mid-attempt
    /// and does not come back.
    pub lease: Duration,
    /// Jobs claimed at once.
    pub batch: u32,
    /// Jobs of one claim attempted at once.
    pub concurrency: usize,
    /// How often an idle worker looks for work nobody woke it for (work that
    /// fell due on a clock, or that another instance queued).
    pub idle_poll: Duration,
}

pub struct Worker<Q: Queue> {
    queue: Arc<Q>,
    clock: Arc<dyn Clock>,
    /// Poked when work is queued or a clock moves.
    wake: Arc<Notify>,
    settings: Settings,
}

fn real_now_ms() -> i64 {
    unix_ms(time::OffsetDateTime::now_utc())
}

impl<Q: Queue> Worker<Q> {
    pub fn new(
        queue: Arc<Q>,
        clock: Arc<dyn Clock>,
        wake: Arc<Notify>,
        settings: Settings,
    ) -> Self {
        Self {
            queue,
            clock,
            wake,
            settings,
        }
    }

    /// Runs until `stop` is cancelled; attempts in progress finish first.
    pub async fn run(self, stop: CancellationToken) {
        self.release().await;
        while !stop.is_cancelled() {
            let jobs = self.claim().await;
            if jobs.is_empty() {
                tokio::select! {
                    _ = self.wake.notified() => continue,
                    _ = tokio::time::sleep(self.settings.idle_poll) => continue,
                    _ = stop.cancelled() => return,
                }
            }
            // Each attempt is a task of its own, as the outbox's were, so a
            // panic in one job's attempt ends that attempt (its lease lapses
            // and it runs again), not the worker.
            let progressed = futures_util::stream::iter(jobs)
                .map(|job| tokio::spawn(process(self.queue.clone(), self.clock.clone(), job)))
                .buffer_unordered(self.settings.concurrency.max(1))
                .fold(false, |progressed, done| async move {
                    match done {
                        Ok(done) => progressed || done,
                        Err(e) => {
                            tracing::error!(queue = Q::NAME, error = %e, "a job's attempt panicked");
                            progressed
                        }
                    }
                })
                .await;
            // A pass in which every job failed waits before the next claim:
            // a queue whose failures stay due at once (no retry schedule)
            // must not spin on them.
            if !progressed {
                tokio::select! {
                    _ = tokio::time::sleep(self.settings.idle_poll) => {}
                    _ = stop.cancelled() => return,
                }
            }
        }
    }

    /// What this instance held when it last stopped (a `kill -9` mid-attempt)
    /// is due again now, not when its lease would have lapsed.
    async fn release(&self) {
        match self.queue.release(&self.settings.holder).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(queue = Q::NAME, jobs = n, holder = %self.settings.holder,
                "gave back the leases of this instance's previous run"),
            Err(e) => tracing::warn!(queue = Q::NAME, error = %e,
                "could not give back this instance's previous leases; they lapse instead"),
        }
    }

    async fn claim(&self) -> Vec<Q::Job> {
        let real = real_now_ms();
        let lease = Lease {
            holder: self.settings.holder.clone(),
            due_before_ms: self.clock.now_ms(),
            real_now_ms: real,
            lease_until_ms: real + self.settings.lease.as_millis() as i64,
            limit: self.settings.batch,
        };
        match self.queue.claim(&lease).await {
            Ok(jobs) => jobs,
            Err(e) => {
                tracing::warn!(queue = Q::NAME, error = %e, "could not claim jobs");
                tokio::time::sleep(self.settings.idle_poll).await;
                Vec::new()
            }
        }
    }
}

/// Attempts the job and has the queue record the outcome; `true` if it
/// was done.
async fn process<Q: Queue>(queue: Arc<Q>, clock: Arc<dyn Clock>, job: Q::Job) -> bool {
    let timing = queue.timing(&job);
    // The job's own clock: retries are scheduled, and deadlines reached,
    // on the clock the job was queued on. A retry is timed from when the
    // attempt began: a clock that moves while the attempt is in flight
    // (a test clock advanced as the receiver answers) must not push the
    // retry later.
    let job_clock = ClientClock::new(timing.clock_offset_ms);
    let started = job_clock.now(clock.now());
    let attempt = queue.attempt(&job).await;
    let now = job_clock.now(clock.now());
    let done = matches!(attempt, Attempt::Done { .. });
    let outcome = match attempt {
        Attempt::Done { status } => Outcome::Done { status },
        Attempt::Failed(failure) => {
            let failed = Attempted {
                first_due_ms: timing.first_due_ms,
                due_ms: timing.due_ms,
                attempt: timing.attempt,
                now_ms: unix_ms(started),
                jitter: rand::random_range(-1.0..=1.0),
            };
            match queue.backoff().next_attempt_ms(failed) {
                Some(at_ms) => Outcome::Retry { at_ms, failure },
                None => Outcome::GiveUp { failure },
            }
        }
    };
    queue.record(job, outcome, now).await;
    done
}
