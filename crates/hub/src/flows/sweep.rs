//! Applications that fall due on their owner's clock
//! (`Application::due_at`): an open one expires at `expires_at`
//! (`application.expired`); a referral in the test environment is settled
//! by the simulated underwriter a day after it was referred (a second
//! `decision.completed`). A queue for the shared worker loop, woken when a
//! test clock moves. Payments due on the clock ride the same queue
//! (`payments::sweep`).

use async_trait::async_trait;
use lendhub_domain::clock::unix_ms;
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::application::{Application, Status};
use lendhub_domain::retry::{Attempted, Backoff};
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::sandbox::test_clock::ClientClock;
use lendhub_jobs::{Attempt, Failure, Outcome, Queue, Timing};

use super::FlowError;

use lendhub_store::{
    CommitError, DueAccount, DueApplication, DueClose, DuePayment, DuePayout, DueSchedule,
    EventWrite, Lease, LedgerWrite, LendingWrite, StoreError, WriteSet,
};
use time::OffsetDateTime;

use crate::flows::Context;
use crate::flows::events::event;
use crate::views::application::ApplicationView;

/// Expires `application` at `now`, with its event, over the version read;
/// `Ok(false)` if it is no longer open (withdrawn meanwhile, or expired by
/// another instance).
pub async fn expire(
    cx: &Context,
    application: &Application,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    let Some(closed) = application.expire(now) else {
        return Ok(false);
    };
    let view = ApplicationView::new(&closed, &cx.links);
    let announced = event(&closed.owner, EventType::ApplicationExpired, &view, now)?;
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateApplication(closed))
        .push(EventWrite::InsertEvent(announced));
    match cx.units.commit(writes).await {
        Ok(()) => Ok(true),
        Err(CommitError::Conflict) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The simulated underwriter settles a test referral at `now`, logged like
/// a person's act; `Ok(false)` if it is no longer in review.
pub async fn review(
    cx: &Context,
    application: &Application,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    use crate::flows::underwrite::{
        Books, Ruling, SIMULATED_UNDERWRITER, UnderwritingError, settle_found,
    };
    let Some(id) = &application.decision_id else {
        return Ok(false);
    };
    let Some(decision) = cx.lending.hub_decision(&application.owner, id).await? else {
        return Ok(false);
    };
    let note = "settled on the test clock a day after the referral (docs/guide/src/simulators.md)";
    let books = Books {
        lending: cx.lending.as_ref(),
        commercial: cx.commercial.as_ref(),
        units: cx.units.as_ref(),
        apply_url: cx.links().urls.apply(),
        brands: cx.brands.as_ref(),
    };
    let settled = settle_found(
        &books,
        application,
        &decision,
        Ruling::Simulated,
        SIMULATED_UNDERWRITER,
        note,
        now,
    )
    .await;
    match settled {
        Ok(_) => Ok(true),
        Err(UnderwritingError::Conflict | UnderwritingError::Refused(_)) => Ok(false),
        Err(e) => Err(FlowError::Internal(e.to_string())),
    }
}

/// Closes a month that is due on its owner's clock: drafted when it ends,
/// finalized on its invoice date. Another instance's close of the same
/// month, or a finalized one, leaves nothing to do.
async fn close_month(
    cx: &Context,
    due: &lendhub_domain::billing::statement::Close,
    now: OffsetDateTime,
) -> Result<bool, FlowError> {
    use crate::flows::close_month::{CloseError, Closed, Ledgers, close};
    let Some(period) = lendhub_domain::billing::statement::Period::parse(&due.period) else {
        return Err(FlowError::Internal(format!(
            "a close of an unreadable period {}",
            due.period
        )));
    };
    let books = Ledgers {
        commercial: cx.commercial.as_ref(),
        units: cx.units.as_ref(),
        days: &cx.working_days,
    };
    match close(&books, &due.owner, period, now, Some(due)).await {
        Ok(Closed::Differs { finalized, .. }) => {
            tracing::warn!(statement = %finalized.id, "a finalized month's facts changed; it needs a correction");
            Ok(true)
        }
        Ok(_) | Err(CloseError::Conflict) => Ok(true),
        Err(e) => Err(FlowError::Internal(e.to_string())),
    }
}

/// Reconciles `day` and keeps its report, unless it was asked for again
/// meanwhile (that request's run keeps its own).
async fn reconcile_day(
    cx: &Context,
    day: time::Date,
    requested_at_ms: i64,
) -> Result<bool, FlowError> {
    let report = crate::flows::reconcile::reconcile(cx, day).await?;
    let mut writes = WriteSet::default();
    writes.push(LedgerWrite::Reconciled {
        at_ms: unix_ms(report.ran_at),
        report,
        requested_at_ms,
    });
    cx.commit(writes).await?;
    Ok(true)
}

/// Monitors the week starting `week` and keeps its report, unless it was
/// asked for again meanwhile.
async fn monitor_week(
    cx: &Context,
    settings: &crate::flows::monitor_models::Settings,
    week: time::Date,
    requested_at_ms: i64,
) -> Result<bool, FlowError> {
    crate::flows::monitor_models::monitor(cx, settings, week, requested_at_ms).await?;
    Ok(true)
}

/// Due applications as a job queue. Like the sandbox's referral reviews,
/// they need no lease: each change is a versioned update, so of several
/// instances exactly one commit wins; one that fails stays due and the next
/// pass takes it again.
pub struct Sweep {
    pub flows: Context,
    /// The last day this instance scheduled the reconciliation of (the day
    /// before it, once each day: `flows::reconcile`).
    reconciled_through: parking_lot::Mutex<Option<time::Date>>,
    /// Whether each day is reconciled unasked (`reconciliation.daily`).
    daily: bool,
    /// The last day this instance scheduled the monitoring of last week on.
    monitored_through: parking_lot::Mutex<Option<time::Date>>,
    monitoring: crate::flows::monitor_models::Settings,
}

impl Sweep {
    pub fn new(
        flows: Context,
        daily: bool,
        monitoring: crate::flows::monitor_models::Settings,
    ) -> Self {
        Self {
            flows,
            reconciled_through: parking_lot::Mutex::new(None),
            daily,
            monitored_through: parking_lot::Mutex::new(None),
            monitoring,
        }
    }

    /// Schedules last week's model monitoring (on the service clock), once
    /// a day per instance; the store keeps one run per week whoever asks.
    async fn schedule_monitoring(&self) -> Result<(), StoreError> {
        let today = self.flows.clock.now().date();
        if !self.monitoring.weekly || *self.monitored_through.lock() == Some(today) {
            return Ok(());
        }
        let (week, due) = crate::flows::monitor_models::last_week(today);
        let mut writes = WriteSet::default();
        writes.push(LendingWrite::ScheduleMonitoring {
            week,
            due_ms: unix_ms(due),
        });
        match self.flows.units.commit(writes).await {
            Ok(()) | Err(CommitError::Conflict | CommitError::IdempotencyKeyTaken) => {}
            Err(CommitError::Store(e)) => return Err(e),
        }
        *self.monitored_through.lock() = Some(today);
        Ok(())
    }

    /// Schedules yesterday's reconciliation (on the service clock), once a
    /// day per instance; the store keeps one run per day whoever asks.
    async fn schedule_reconciliation(&self) -> Result<(), StoreError> {
        let now = self.flows.clock.now();
        let today = now.date();
        if !self.daily || *self.reconciled_through.lock() == Some(today) {
            return Ok(());
        }
        let Some(yesterday) = today.previous_day() else {
            return Ok(());
        };
        let due = today.midnight().assume_utc() + RECONCILE_AFTER_MIDNIGHT;
        let mut writes = WriteSet::default();
        writes.push(LedgerWrite::ScheduleReconciliation {
            day: yesterday,
            due_ms: unix_ms(due),
        });
        match self.flows.units.commit(writes).await {
            Ok(()) | Err(CommitError::Conflict | CommitError::IdempotencyKeyTaken) => {}
            Err(CommitError::Store(e)) => return Err(e),
        }
        *self.reconciled_through.lock() = Some(today);
        Ok(())
    }
}

/// A day is reconciled an hour after it ends, so the callbacks of its last
/// payments have arrived (a later one is matched across days anyway).
const RECONCILE_AFTER_MIDNIGHT: time::Duration = time::Duration::hours(1);

struct NextPass;

impl Backoff for NextPass {
    fn next_attempt_ms(&self, failed: Attempted) -> Option<i64> {
        Some(failed.now_ms)
    }
}

/// Something due on its owner's clock. Unboxed: a batch of jobs lives for
/// one pass, and a box would cost an allocation per job.
#[allow(clippy::large_enum_variant)]
pub enum Due {
    Application(DueApplication),
    Payment(DuePayment),
    Account(DueAccount),
    Schedule(DueSchedule),
    /// A month to close (draft, then finalize) on its owner's clock.
    Close(DueClose),
    /// A sub-account's payout to send over the rail (or ask after).
    Payout(DuePayout),
    /// A day to reconcile, on the service clock, and when it was asked for.
    Reconciliation(time::Date, i64),
    /// A week (its Monday) whose credit model to monitor, and when it was
    /// asked for.
    Monitoring(time::Date, i64),
}

impl Due {
    fn clock_offset_ms(&self) -> i64 {
        match self {
            Due::Application(d) => d.clock_offset_ms,
            Due::Payment(d) => d.clock_offset_ms,
            Due::Account(d) => d.clock_offset_ms,
            Due::Schedule(d) => d.clock_offset_ms,
            Due::Close(d) => d.clock_offset_ms,
            Due::Payout(d) => d.clock_offset_ms,
            Due::Reconciliation(..) | Due::Monitoring(..) => 0,
        }
    }
}

#[async_trait]
impl Queue for Sweep {
    type Job = Due;
    const NAME: &'static str = "application and payment sweep";

    async fn claim(&self, lease: &Lease) -> Result<Vec<Due>, StoreError> {
        let applications = self
            .flows
            .lending
            .due_applications(lease.due_before_ms, lease.limit)
            .await?;
        let payments = self
            .flows
            .servicing
            .due_payments(lease.due_before_ms, lease.limit)
            .await?;
        let accounts = self
            .flows
            .servicing
            .due_accounts(lease.due_before_ms, lease.limit)
            .await?;
        let schedules = self
            .flows
            .servicing
            .due_schedules(lease.due_before_ms, lease.limit)
            .await?;
        let closes = self
            .flows
            .commercial
            .due_closes(lease.due_before_ms, lease.limit)
            .await?;
        let payouts = self
            .flows
            .commercial
            .due_payouts(lease.due_before_ms, lease.limit)
            .await?;
        self.schedule_reconciliation().await?;
        let days = self
            .flows
            .ledger
            .due_reconciliations(unix_ms(self.flows.clock.now()), lease.limit)
            .await?;
        self.schedule_monitoring().await?;
        let weeks = self
            .flows
            .lending
            .due_monitoring(unix_ms(self.flows.clock.now()), lease.limit)
            .await?;
        // An account's due work is taken in the order it happens, however
        // far the clock jumped in one go (a pass's jobs run at once, in no
        // order): its payments first, then its schedules' next instalments
        // (the final one sweeps a payoff the previous must have settled
        // into), then its review (the morning after a due date, which must
        // see that day's collection settled; settling reviews the account
        // in the same commit anyway).
        let paying: std::collections::HashSet<String> = payments
            .iter()
            .map(|d| d.payment.account_id.to_string())
            .collect();
        let schedules: Vec<DueSchedule> = schedules
            .into_iter()
            .filter(|d| !paying.contains(d.schedule.account_id.as_str()))
            .collect();
        let busy: std::collections::HashSet<&str> = schedules
            .iter()
            .map(|d| d.schedule.account_id.as_str())
            .chain(paying.iter().map(String::as_str))
            .collect();
        let accounts: Vec<DueAccount> = accounts
            .into_iter()
            .filter(|d| !busy.contains(d.account.id.as_str()))
            .collect();
        Ok(applications
            .into_iter()
            .map(Due::Application)
            .chain(schedules.into_iter().map(Due::Schedule))
            .chain(payments.into_iter().map(Due::Payment))
            .chain(accounts.into_iter().map(Due::Account))
            .chain(closes.into_iter().map(Due::Close))
            .chain(payouts.into_iter().map(Due::Payout))
            .chain(days.into_iter().map(|(d, at)| Due::Reconciliation(d, at)))
            .chain(weeks.into_iter().map(|(w, at)| Due::Monitoring(w, at)))
            .collect())
    }

    fn timing(&self, due: &Due) -> Timing {
        let due_ms = match due {
            Due::Application(d) => d.application.due_at().map_or(0, unix_ms),
            Due::Payment(d) => d.payment.due_at().map_or(0, unix_ms),
            Due::Account(d) => d.account.next_review.map_or(0, unix_ms),
            Due::Schedule(d) => d.schedule.due_at().map_or(0, unix_ms),
            Due::Close(d) => d.close.due_at_ms,
            Due::Payout(d) => d.payout.due_at.map_or(0, unix_ms),
            Due::Reconciliation(_, requested_at_ms) | Due::Monitoring(_, requested_at_ms) => {
                *requested_at_ms
            }
        };
        Timing {
            first_due_ms: due_ms,
            due_ms,
            attempt: 1,
            clock_offset_ms: due.clock_offset_ms(),
        }
    }

    async fn attempt(&self, due: &Due) -> Attempt {
        let now = ClientClock::new(due.clock_offset_ms()).now(self.flows.clock.now());
        let done = match due {
            Due::Payment(p) => crate::flows::payment_sweep::run(&self.flows, p, now).await,
            Due::Schedule(s) => {
                // Initiated on its due date (or at creation, for one due
                // today), not when this pass ran.
                let at = s
                    .schedule
                    .due_at()
                    .map_or(now, |t| t.max(s.schedule.created_at).min(now));
                crate::flows::schedule_collect::collect(&self.flows, &s.schedule, at).await
            }
            Due::Account(a) => {
                // Dated when the instalment fell due, not when this pass ran.
                let at = a.account.next_review.map_or(now, |t| t.min(now));
                crate::flows::review_account::review(&self.flows, &a.account, at).await
            }
            Due::Close(d) => close_month(&self.flows, &d.close, now).await,
            Due::Payout(d) => crate::flows::share_payout::send(&self.flows, &d.payout, now).await,
            Due::Reconciliation(day, requested_at_ms) => {
                reconcile_day(&self.flows, *day, *requested_at_ms).await
            }
            Due::Monitoring(week, requested_at_ms) => {
                monitor_week(&self.flows, &self.monitoring, *week, *requested_at_ms).await
            }
            Due::Application(due) => match due.application.status {
                Status::InReview => review(&self.flows, &due.application, now).await,
                Status::Approved => {
                    crate::flows::fund::disburse(&self.flows, &due.application, now).await
                }
                _ => expire(&self.flows, &due.application, now).await,
            },
        };
        match done {
            Ok(_) => Attempt::Done { status: None },
            Err(error) => Attempt::Failed(Failure {
                error: error.to_string(),
                status: None,
            }),
        }
    }

    fn backoff(&self) -> &dyn Backoff {
        &NextPass
    }

    async fn record(&self, due: Due, outcome: Outcome, _now: OffsetDateTime) {
        match (outcome, due) {
            (Outcome::Done { .. }, _) => self.flows.outbox_wake.notify_one(),
            (Outcome::Retry { failure, .. } | Outcome::GiveUp { failure }, Due::Application(d)) => {
                tracing::warn!(application = %d.application.id, error = %failure.error,
                    "could not expire or settle an application; the next pass retries it")
            }
            (Outcome::Retry { failure, .. } | Outcome::GiveUp { failure }, Due::Account(d)) => {
                tracing::warn!(account = %d.account.id, error = %failure.error,
                    "could not review an account; the next pass retries it")
            }
            (Outcome::Retry { failure, .. } | Outcome::GiveUp { failure }, Due::Schedule(d)) => {
                tracing::warn!(schedule = %d.schedule.id, error = %failure.error,
                    "could not initiate a scheduled collection; the next pass retries it")
            }
            (Outcome::Retry { failure, .. } | Outcome::GiveUp { failure }, Due::Close(d)) => {
                tracing::warn!(owner = %d.close.owner, period = %d.close.period, error = %failure.error,
                    "could not close a month; the next pass retries it")
            }
            (Outcome::Retry { failure, .. } | Outcome::GiveUp { failure }, Due::Payout(d)) => {
                tracing::warn!(payout = %d.payout.id, error = %failure.error,
                    "could not send a payout or ask the rail after it; the next pass retries it")
            }
            (
                Outcome::Retry { failure, .. } | Outcome::GiveUp { failure },
                Due::Reconciliation(day, _),
            ) => {
                tracing::warn!(%day, error = %failure.error,
                    "could not reconcile a day; the next pass retries it")
            }
            (
                Outcome::Retry { failure, .. } | Outcome::GiveUp { failure },
                Due::Monitoring(week, _),
            ) => {
                tracing::warn!(%week, error = %failure.error,
                    "could not monitor the credit model's week; the next pass retries it")
            }
            (Outcome::Retry { failure, .. } | Outcome::GiveUp { failure }, Due::Payment(d)) => {
                tracing::warn!(payment = %d.payment.id, error = %failure.error,
                    "could not settle or expire a payment; the next pass retries it")
            }
        }
    }

    async fn release(&self, _holder: &str) -> Result<u64, StoreError> {
        Ok(0)
    }
}
