//! One worker loop for every background queue: claim due jobs under a lease,
//! attempt them, back off failures by the queue's schedule, and wake when
//! work arrives. Webhook delivery, mail and referral reviews are queues;
//! payment schedules, payouts and statements will be.
//!
//! A queue says what is due ([`Queue::claim`]), does one job
//! ([`Queue::attempt`]) and stores what happened ([`Queue::record`]); the
//! loop owns the rest. State lives in the database, so jobs survive restarts
//! and several instances share a queue: a lease names its holder, and a
//! restarted instance gives back its own leases before it claims again.

mod worker;

pub use worker::{Settings, Worker};

use async_trait::async_trait;
use lendhub_domain::retry::Backoff;
use lendhub_store::{Lease, StoreError};
use time::OffsetDateTime;

/// When a job was due, on the clock it is timed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    pub first_due_ms: i64,
    pub due_ms: i64,
    /// This attempt's number, 1-based.
    pub attempt: u32,
    /// The job's clock against the service clock (an owner's test clock).
    pub clock_offset_ms: i64,
}

/// What one attempt came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// `status`: the counterparty's answer, when there was one.
    Done {
        status: Option<u16>,
    },
    Failed(Failure),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub error: String,
    /// The counterparty's answer, when there was one (an HTTP status).
    pub status: Option<u16>,
}

/// What the loop decided after an attempt, for the queue to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done { status: Option<u16> },
    Retry { at_ms: i64, failure: Failure },
    GiveUp { failure: Failure },
}

#[async_trait]
pub trait Queue: Send + Sync + 'static {
    type Job: Send + 'static;

    /// For logs and the claim-failure warning.
    const NAME: &'static str;

    /// Leases up to `lease.limit` due jobs to `lease.holder`, soonest due first.
    async fn claim(&self, lease: &Lease) -> Result<Vec<Self::Job>, StoreError>;

    fn timing(&self, job: &Self::Job) -> Timing;

    /// Does the job's work once.
    async fn attempt(&self, job: &Self::Job) -> Attempt;

    /// The schedule failed attempts are retried on.
    fn backoff(&self) -> &dyn Backoff;

    /// Stores the outcome and ends the lease. When it cannot, the lease
    /// lapses and the job runs again: delivery is at least once.
    async fn record(&self, job: Self::Job, outcome: Outcome, now: OffsetDateTime);

    /// Gives back the leases a previous run of this instance held.
    async fn release(&self, holder: &str) -> Result<u64, StoreError>;
}
