//! The worker loop against a queue held in memory: what it gives back at
//! start, what it records for each kind of attempt, and that it stops.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use lendhub_domain::clock::{Clock, from_unix_ms};
use lendhub_domain::retry::{Attempted, Backoff};
use lendhub_jobs::{Attempt, Failure, Outcome, Queue, Settings, Timing, Worker};
use lendhub_store::{Lease, StoreError};
use parking_lot::Mutex;
use time::OffsetDateTime;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

const NOW_MS: i64 = 1_800_000_000_000;

struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> OffsetDateTime {
        from_unix_ms(NOW_MS)
    }
}

#[derive(Clone, Debug)]
struct Job {
    name: &'static str,
    succeeds: bool,
    attempt: u32,
}

/// Retries a minute later, three attempts in all.
struct ThreeTries;

impl Backoff for ThreeTries {
    fn next_attempt_ms(&self, failed: Attempted) -> Option<i64> {
        (failed.attempt < 3).then_some(failed.now_ms + 60_000)
    }
}

#[derive(Default)]
struct Memory {
    pending: Mutex<Vec<Job>>,
    leases: Mutex<Vec<Lease>>,
    released: Mutex<Vec<String>>,
    recorded: Mutex<Vec<(&'static str, Outcome)>>,
    done: Notify,
}

#[async_trait]
impl Queue for Memory {
    type Job = Job;
    const NAME: &'static str = "memory";

    async fn claim(&self, lease: &Lease) -> Result<Vec<Job>, StoreError> {
        self.leases.lock().push(lease.clone());
        Ok(std::mem::take(&mut *self.pending.lock()))
    }

    fn timing(&self, job: &Job) -> Timing {
        Timing {
            first_due_ms: NOW_MS - 1_000,
            due_ms: NOW_MS,
            attempt: job.attempt,
            clock_offset_ms: 0,
        }
    }

    async fn attempt(&self, job: &Job) -> Attempt {
        if job.succeeds {
            Attempt::Done { status: Some(204) }
        } else {
            Attempt::Failed(Failure {
                error: "refused".into(),
                status: Some(500),
            })
        }
    }

    fn backoff(&self) -> &dyn Backoff {
        &ThreeTries
    }

    async fn record(&self, job: Job, outcome: Outcome, _now: OffsetDateTime) {
        self.recorded.lock().push((job.name, outcome));
        self.done.notify_one();
    }

    async fn release(&self, holder: &str) -> Result<u64, StoreError> {
        self.released.lock().push(holder.to_owned());
        Ok(0)
    }
}

fn settings() -> Settings {
    Settings {
        holder: "instance-a".into(),
        lease: Duration::from_secs(60),
        batch: 10,
        concurrency: 4,
        idle_poll: Duration::from_secs(1),
    }
}

#[tokio::test(start_paused = true)]
async fn the_loop_gives_back_its_leases_attempts_backs_off_and_stops() {
    let queue = Arc::new(Memory::default());
    queue.pending.lock().extend([
        Job {
            name: "ok",
            succeeds: true,
            attempt: 1,
        },
        Job {
            name: "retry",
            succeeds: false,
            attempt: 1,
        },
        Job {
            name: "last",
            succeeds: false,
            attempt: 3,
        },
    ]);
    let worker = Worker::new(
        queue.clone(),
        Arc::new(FixedClock),
        Arc::new(Notify::new()),
        settings(),
    );
    let stop = CancellationToken::new();
    let running = tokio::spawn(worker.run(stop.clone()));
    while queue.recorded.lock().len() < 3 {
        queue.done.notified().await;
    }
    stop.cancel();
    running.await.unwrap();

    assert_eq!(
        *queue.released.lock(),
        ["instance-a"],
        "its own leases, first"
    );
    let lease = queue.leases.lock()[0].clone();
    assert_eq!(lease.holder, "instance-a");
    assert_eq!(lease.due_before_ms, NOW_MS, "due by the injected clock");
    assert_eq!(lease.lease_until_ms - lease.real_now_ms, 60_000);
    assert_eq!(lease.limit, 10);

    let mut recorded = queue.recorded.lock().clone();
    recorded.sort_by_key(|(name, _)| *name);
    let failure = Failure {
        error: "refused".into(),
        status: Some(500),
    };
    assert_eq!(
        recorded,
        [
            (
                "last",
                Outcome::GiveUp {
                    failure: failure.clone()
                }
            ),
            ("ok", Outcome::Done { status: Some(204) }),
            (
                "retry",
                Outcome::Retry {
                    at_ms: NOW_MS + 60_000,
                    failure
                }
            ),
        ]
    );
}

/// The idle poll is an hour, so only the wake can bring the job in within
/// the bound below.
#[tokio::test]
async fn new_work_is_claimed_when_the_worker_is_woken() {
    let queue = Arc::new(Memory::default());
    let wake = Arc::new(Notify::new());
    let hourly = Settings {
        idle_poll: Duration::from_secs(3600),
        ..settings()
    };
    let worker = Worker::new(queue.clone(), Arc::new(FixedClock), wake.clone(), hourly);
    let stop = CancellationToken::new();
    let running = tokio::spawn(worker.run(stop.clone()));
    while queue.leases.lock().is_empty() {
        tokio::task::yield_now().await;
    }
    queue.pending.lock().push(Job {
        name: "late",
        succeeds: true,
        attempt: 1,
    });
    wake.notify_one();
    tokio::time::timeout(Duration::from_secs(10), queue.done.notified())
        .await
        .expect("the wake brought the job in");
    stop.cancel();
    running.await.unwrap();
    assert_eq!(queue.recorded.lock().len(), 1);
}
