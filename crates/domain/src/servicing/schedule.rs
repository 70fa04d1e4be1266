//! Payment schedules (hub seed, Resources → Payment and schedule; States →
//! Schedule; issue #16): a partner's standing instruction to collect a
//! fixed amount weekly or monthly from an account, each due date
//! initiating a child payment. `docs/guide/src/state-machines.md` draws it.

use serde::{Deserialize, Serialize};
use time::{Date, Duration, OffsetDateTime};

use crate::ids::{AccountId, MandateId, PaymentId, ScheduleId};
use crate::money::Money;
use crate::tenant::Tenant;

/// The most instalments a fixed schedule may have: ten years of weekly
/// collections.
pub const MAX_COUNT: u32 = 520;

/// How far the final instalment may exceed the others and still be taken
/// whole: a rounding remainder, not arrears (docs/decisions.md). In tenths
/// of the instalment.
const SWEEP_TOLERANCE_TENTHS: i64 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cadence {
    Weekly,
    Monthly,
}

impl Cadence {
    pub fn as_str(self) -> &'static str {
        match self {
            Cadence::Weekly => "weekly",
            Cadence::Monthly => "monthly",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [Cadence::Weekly, Cadence::Monthly]
            .into_iter()
            .find(|c| c.as_str() == raw)
    }

    /// The `n`th due date (from 0) of a schedule starting on `start`:
    /// monthly dates keep the start's day, or the month's last day when it
    /// has fewer.
    pub fn nth(self, start: Date, n: u32) -> Date {
        match self {
            Cadence::Weekly => start
                .checked_add(Duration::weeks(i64::from(n)))
                .unwrap_or(Date::MAX),
            Cadence::Monthly => crate::servicing::ledger::months_after(start, n),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleStatus {
    /// Collecting (the seed's status on creation).
    Active,
    /// A fixed schedule's final instalment settled: `schedule.completed`.
    Completed,
    /// Nothing more to collect without being complete: the account was
    /// repaid or closed first, or the final instalment failed.
    Ended,
    /// An open-ended schedule the partner cancelled (the seed's tombstone).
    Cancelled,
}

impl ScheduleStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ScheduleStatus::Active => "active",
            ScheduleStatus::Completed => "completed",
            ScheduleStatus::Ended => "ended",
            ScheduleStatus::Cancelled => "cancelled",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    pub id: ScheduleId,
    pub owner: Tenant,
    pub account_id: AccountId,
    pub status: ScheduleStatus,
    pub cadence: Cadence,
    /// Per instalment.
    pub amount: Money,
    pub start_date: Date,
    /// `None`: open-ended.
    pub count: Option<u32>,
    /// The payer's standing authority; until one exists each instalment is
    /// a link the payer pays on the pay page, and the first they authorise
    /// establishes it.
    pub mandate_id: Option<MandateId>,
    /// Instalments initiated so far, each a child payment.
    pub initiated: u32,
    /// The newest child payment.
    pub last_payment_id: Option<PaymentId>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When it completed, ended or was cancelled.
    #[serde(with = "time::serde::rfc3339::option")]
    pub finished_at: Option<OffsetDateTime>,
    /// Bumped by every change; a change commits only over the version it read.
    pub version: i64,
    /// The partner's own reference of the loan (the application's), echoed
    /// as on every object of it.
    #[serde(default)]
    pub reference: Option<String>,
}

/// Why a schedule cannot be cancelled.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotCancellable {
    #[error("a fixed schedule runs to its final instalment")]
    Fixed,
    #[error("the schedule is {0:?}")]
    Finished(ScheduleStatus),
}

impl Schedule {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: ScheduleId,
        owner: Tenant,
        account_id: AccountId,
        cadence: Cadence,
        amount: Money,
        start_date: Date,
        count: Option<u32>,
        mandate_id: Option<MandateId>,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            id,
            owner,
            account_id,
            status: ScheduleStatus::Active,
            cadence,
            amount,
            start_date,
            count,
            mandate_id,
            initiated: 0,
            last_payment_id: None,
            created_at: now,
            finished_at: None,
            version: 1,
            reference: None,
        }
    }

    fn next(&self) -> Self {
        Self {
            version: self.version + 1,
            ..self.clone()
        }
    }

    /// The `n`th instalment's due date (from 0).
    pub fn due_on(&self, n: u32) -> Date {
        self.cadence.nth(self.start_date, n)
    }

    /// The next instalment to initiate, if any: (its number from 0, its
    /// due date).
    pub fn next_instalment(&self) -> Option<(u32, Date)> {
        let n = self.initiated;
        (self.status == ScheduleStatus::Active && self.count.is_none_or(|c| n < c))
            .then(|| (n, self.due_on(n)))
    }

    /// When the scheduler next needs it: the start of the next due date.
    pub fn due_at(&self) -> Option<OffsetDateTime> {
        self.next_instalment()
            .map(|(_, on)| on.midnight().assume_utc())
    }

    /// Instalments not yet initiated; `None` when open-ended.
    pub fn remaining(&self) -> Option<u32> {
        self.count.map(|c| c.saturating_sub(self.initiated))
    }

    pub fn is_final(&self, n: u32) -> bool {
        self.count == Some(n + 1)
    }

    /// What instalment `n` collects when `payoff` settles the account: the
    /// instalment, never more than is owed; the final one of a fixed
    /// schedule sweeps the payoff when it is within a rounding remainder of
    /// the instalment (a larger gap is arrears, collected only by asking).
    /// `None` when nothing is owed.
    pub fn instalment_amount(&self, n: u32, payoff: Money) -> Option<Money> {
        if payoff <= Money::ZERO {
            return None;
        }
        let sweep_limit = self.amount.checked_add(self.amount.ratio(
            SWEEP_TOLERANCE_TENTHS,
            10,
            crate::money::Rounding::Down,
        )?)?;
        Some(if self.is_final(n) && payoff <= sweep_limit {
            payoff
        } else {
            self.amount.min(payoff)
        })
    }

    /// The most any one instalment may take: the amount, or a final one
    /// sweeping up to a tenth more (`instalment_amount`). A mandate's
    /// consent allows this much a payment.
    pub fn largest_instalment(&self) -> Money {
        self.amount
            .ratio(SWEEP_TOLERANCE_TENTHS, 10, crate::money::Rounding::Down)
            .and_then(|more| self.amount.checked_add(more))
            .unwrap_or(self.amount)
    }

    /// Instalment `n` was initiated as `payment`.
    pub fn initiated(&self, payment: &PaymentId) -> Self {
        Self {
            initiated: self.initiated + 1,
            last_payment_id: Some(payment.clone()),
            ..self.next()
        }
    }

    /// The payer's first authorisation established `mandate`.
    pub fn with_mandate(&self, mandate: &MandateId) -> Self {
        Self {
            mandate_id: Some(mandate.clone()),
            ..self.next()
        }
    }

    fn finish(&self, status: ScheduleStatus, now: OffsetDateTime) -> Option<Self> {
        (self.status == ScheduleStatus::Active).then(|| Self {
            status,
            finished_at: Some(now),
            ..self.next()
        })
    }

    /// The final instalment settled.
    pub fn completed(&self, now: OffsetDateTime) -> Option<Self> {
        self.finish(ScheduleStatus::Completed, now)
    }

    /// Nothing more will be collected.
    pub fn ended(&self, now: OffsetDateTime) -> Option<Self> {
        self.finish(ScheduleStatus::Ended, now)
    }

    /// The partner cancels an open-ended schedule, or a fixed one whose
    /// mandate the payer revoked (nothing more can be collected under it):
    /// tombstoned, kept to be read. Cancelling a cancelled one changes
    /// nothing (`Ok(None)`).
    pub fn cancelled(
        &self,
        mandate_revoked: bool,
        now: OffsetDateTime,
    ) -> Result<Option<Self>, NotCancellable> {
        match (self.status, self.count) {
            (ScheduleStatus::Cancelled, _) => Ok(None),
            (ScheduleStatus::Active, Some(_)) if !mandate_revoked => Err(NotCancellable::Fixed),
            (ScheduleStatus::Active, _) => Ok(self.finish(ScheduleStatus::Cancelled, now)),
            (status, _) => Err(NotCancellable::Finished(status)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HubId;
    use time::macros::{date, datetime};

    fn schedule(cadence: Cadence, count: Option<u32>) -> Schedule {
        Schedule::new(
            ScheduleId::generate(1, 1),
            Tenant::from_stored("partner:p:test".into()),
            AccountId::generate(1, 2),
            cadence,
            Money::pence(10_000),
            date!(2027 - 01 - 31),
            count,
            None,
            datetime!(2026-11-26 10:00 UTC),
        )
    }

    #[test]
    fn no_instalment_takes_more_than_the_largest_a_mandate_allows() {
        let m = schedule(Cadence::Monthly, Some(3));
        assert_eq!(m.largest_instalment(), Money::pence(11_000));
        // The final one sweeps up a payoff a little over the amount, and
        // still fits.
        for payoff in [5_000, 10_000, 10_999, 11_000, 50_000] {
            let taken = m.instalment_amount(2, Money::pence(payoff));
            assert!(
                taken.is_some_and(|t| t <= m.largest_instalment()),
                "{payoff}"
            );
        }
    }

    #[test]
    fn due_dates_follow_the_cadence() {
        let m = schedule(Cadence::Monthly, Some(3));
        assert_eq!(m.due_on(0), date!(2027 - 01 - 31));
        assert_eq!(m.due_on(1), date!(2027 - 02 - 28), "clamped to the month");
        assert_eq!(
            m.due_on(2),
            date!(2027 - 03 - 31),
            "from the start, not chained"
        );
        let w = schedule(Cadence::Weekly, None);
        assert_eq!(w.due_on(2), date!(2027 - 02 - 14));
        assert_eq!(
            m.due_at(),
            Some(datetime!(2027-01-31 00:00 UTC)),
            "initiated at the start of its day"
        );
    }

    #[test]
    fn a_fixed_schedule_initiates_count_instalments_then_waits_for_the_last() {
        let mut s = schedule(Cadence::Monthly, Some(2));
        assert_eq!(s.remaining(), Some(2));
        for n in 0..2 {
            let (number, _) = s.next_instalment().expect("more to go");
            assert_eq!(number, n);
            s = s.initiated(&PaymentId::generate(2, u128::from(n)));
        }
        assert_eq!(
            (s.next_instalment(), s.due_at(), s.remaining()),
            (None, None, Some(0))
        );
        assert_eq!(s.status, ScheduleStatus::Active, "until the last settles");
        let done = s
            .completed(datetime!(2027-03-01 00:00 UTC))
            .expect("active");
        assert_eq!(done.status, ScheduleStatus::Completed);
        assert_eq!(done.completed(done.created_at), None, "once");
        assert_eq!(s.cancelled(false, s.created_at), Err(NotCancellable::Fixed));
        let stopped = s
            .cancelled(true, s.created_at)
            .expect("its mandate was revoked")
            .expect("changed");
        assert_eq!(stopped.status, ScheduleStatus::Cancelled);
    }

    #[test]
    fn an_open_ended_schedule_is_cancelled_once() {
        let s = schedule(Cadence::Weekly, None);
        assert_eq!(s.remaining(), None);
        let gone = s
            .cancelled(false, s.created_at)
            .expect("open-ended")
            .expect("changed");
        assert_eq!(gone.status, ScheduleStatus::Cancelled);
        assert_eq!(gone.next_instalment(), None);
        assert_eq!(
            gone.cancelled(false, s.created_at),
            Ok(None),
            "again: unchanged"
        );
    }

    #[test]
    fn the_final_instalment_sweeps_a_rounding_remainder_but_not_arrears() {
        let s = schedule(Cadence::Monthly, Some(12));
        let p = Money::pence;
        assert_eq!(s.instalment_amount(0, p(50_000)), Some(p(10_000)));
        assert_eq!(
            s.instalment_amount(0, p(4_000)),
            Some(p(4_000)),
            "never more than owed"
        );
        assert_eq!(s.instalment_amount(0, Money::ZERO), None);
        assert_eq!(
            s.instalment_amount(11, p(10_037)),
            Some(p(10_037)),
            "the sweep"
        );
        assert_eq!(s.instalment_amount(11, p(9_990)), Some(p(9_990)));
        assert_eq!(
            s.instalment_amount(11, p(11_000)),
            Some(p(11_000)),
            "within a tenth"
        );
        assert_eq!(
            s.instalment_amount(11, p(20_000)),
            Some(p(10_000)),
            "arrears are asked for"
        );
        let open = schedule(Cadence::Weekly, None);
        assert_eq!(open.instalment_amount(500, p(10_037)), Some(p(10_000)));
    }

    proptest::proptest! {
        /// Due dates strictly increase; a monthly one keeps the start's day
        /// (or its month's last), one calendar month after the last, never
        /// drifting from the start; a weekly one is seven days on.
        #[test]
        fn due_dates_are_ordered_and_anchored_to_the_start(
            start_day in 0i64..3_650,
            monthly in proptest::prelude::any::<bool>(),
            n in 0u32..240,
        ) {
            let start = date!(2026 - 01 - 01) + Duration::days(start_day);
            let cadence = if monthly { Cadence::Monthly } else { Cadence::Weekly };
            let (this, next) = (cadence.nth(start, n), cadence.nth(start, n + 1));
            proptest::prop_assert!(this < next);
            match cadence {
                Cadence::Weekly => proptest::prop_assert_eq!(next - this, Duration::weeks(1)),
                Cadence::Monthly => {
                    let months = |d: Date| i64::from(d.year()) * 12 + i64::from(u8::from(d.month()));
                    proptest::prop_assert_eq!(months(next) - months(this), 1);
                    let last = next.month().length(next.year());
                    proptest::prop_assert_eq!(next.day(), start.day().min(last));
                }
            }
        }

        /// An instalment never collects more than is owed nor more than the
        /// instalment, but the final one of a fixed schedule, which sweeps a
        /// payoff within a tenth of the instalment above it; nothing is
        /// asked when nothing is owed.
        #[test]
        fn instalments_never_take_more_than_is_owed(
            amount in 1i64..10_000_000,
            payoff in -1_000i64..20_000_000,
            count in proptest::option::of(1u32..60),
            n in 0u32..60,
        ) {
            let mut s = schedule(Cadence::Monthly, count);
            s.amount = Money::pence(amount);
            let payoff = Money::pence(payoff);
            match s.instalment_amount(n, payoff) {
                None => proptest::prop_assert!(payoff <= Money::ZERO),
                Some(take) => {
                    proptest::prop_assert!(take > Money::ZERO && take <= payoff);
                    if take > s.amount {
                        proptest::prop_assert!(s.is_final(n), "only the final instalment sweeps");
                        proptest::prop_assert_eq!(take, payoff);
                        proptest::prop_assert!(take.as_pence() <= amount + amount / 10);
                    }
                }
            }
        }
    }
}
