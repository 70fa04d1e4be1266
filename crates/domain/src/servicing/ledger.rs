//! A servicing account's ledger (hub seed, Resources → Ledger entry; issue
//! #16): immutable entries in integer pence, and the balance derived from
//! them on the clock. Nothing here stores a balance: every figure is
//! recomputed from the entries, so the ledger is the only record of money.
//!
//! Signs are the borrower's: a drawdown (the loan paid out) is negative,
//! a collection (the borrower paying) positive, a refund (a collection
//! handed back) negative, an adjustment either way (positive credits the
//! borrower). docs/decisions.md records the interest model.

use serde::{Deserialize, Serialize};
use time::{Date, Duration, OffsetDateTime};

use crate::ids::{AccountId, HubId, LedgerEntryId};
use crate::money::{Money, Rounding};
use crate::servicing::account::Account;
use crate::tenant::Tenant;

/// Days in the year that daily interest divides the annual rate by
/// (actual/365, the UK convention for business loans).
pub const DAYS_IN_YEAR: i64 = 365;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    Drawdown,
    Collection,
    Refund,
    Adjustment,
}

impl EntryKind {
    pub const ALL: [EntryKind; 4] = [
        EntryKind::Drawdown,
        EntryKind::Collection,
        EntryKind::Refund,
        EntryKind::Adjustment,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Drawdown => "drawdown",
            EntryKind::Collection => "collection",
            EntryKind::Refund => "refund",
            EntryKind::Adjustment => "adjustment",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == raw)
    }
}

/// One ledger entry. Never changed or removed; a correction is a new
/// adjustment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub id: LedgerEntryId,
    pub owner: Tenant,
    pub account_id: AccountId,
    pub kind: EntryKind,
    /// Signed, as the borrower sees it (see the module's notes).
    pub amount: Money,
    /// The payment a collection or refund moved money by.
    pub payment_id: Option<String>,
    /// Why an adjustment was made; what a drawdown paid out by.
    pub note: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub posted_at: OffsetDateTime,
}

/// Why an entry cannot be posted.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadEntry {
    #[error("a {0} must be negative")]
    MustBeNegative(&'static str),
    #[error("a {0} must be positive")]
    MustBePositive(&'static str),
    #[error("an adjustment must not be zero")]
    Zero,
    #[error("an amount out of range")]
    OutOfRange,
}

impl Entry {
    /// The principal paid out by Faster Payments: an account's first entry.
    pub fn drawdown(
        id: LedgerEntryId,
        account: &Account,
        posted_at: OffsetDateTime,
    ) -> Result<Self, BadEntry> {
        let principal = account
            .principal()
            .checked_neg()
            .ok_or(BadEntry::OutOfRange)?;
        Self::new(
            id,
            account,
            EntryKind::Drawdown,
            principal,
            None,
            Some(format!("Faster Payments {}", account.disbursement_id)),
            posted_at,
        )
    }

    /// An entry whose sign agrees with its kind.
    pub fn new(
        id: LedgerEntryId,
        account: &Account,
        kind: EntryKind,
        amount: Money,
        payment_id: Option<String>,
        note: Option<String>,
        posted_at: OffsetDateTime,
    ) -> Result<Self, BadEntry> {
        let pence = amount.as_pence();
        match kind {
            EntryKind::Drawdown | EntryKind::Refund if pence >= 0 => {
                return Err(BadEntry::MustBeNegative(kind.as_str()));
            }
            EntryKind::Collection if pence <= 0 => {
                return Err(BadEntry::MustBePositive(kind.as_str()));
            }
            EntryKind::Adjustment if pence == 0 => return Err(BadEntry::Zero),
            _ => {}
        }
        Ok(Self {
            id,
            owner: account.owner.clone(),
            account_id: account.id.clone(),
            kind,
            amount,
            payment_id,
            note,
            posted_at,
        })
    }
}

/// One instalment of the repayment schedule the borrower signed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instalment {
    pub number: u32,
    pub due_on: Date,
    pub amount: Money,
}

/// The signed schedule: the offer's level instalments, one a month from the
/// month after the drawdown, on the drawdown's day of the month (or the
/// month's last day when it has fewer).
pub fn schedule(account: &Account) -> Vec<Instalment> {
    let terms = &account.terms;
    crate::loan::schedule(
        terms.amount_pence.as_pence(),
        terms.annual_rate_bps,
        terms.term_months,
    )
    .into_iter()
    .zip(1u32..)
    .map(|(amount, number)| Instalment {
        number,
        due_on: months_after(account.opened_at.date(), number),
        amount: Money::pence(amount),
    })
    .collect()
}

/// `start` moved on `months` calendar months, clamped to the month's end.
pub(crate) fn months_after(start: Date, months: u32) -> Date {
    let index =
        i64::from(start.year()) * 12 + i64::from(u8::from(start.month())) - 1 + i64::from(months);
    let year = i32::try_from(index.div_euclid(12)).unwrap_or(i32::MAX);
    let month = time::Month::try_from(u8::try_from(index.rem_euclid(12) + 1).unwrap_or(1))
        .unwrap_or(time::Month::January);
    let last_day = time::util::days_in_month(month, year);
    Date::from_calendar_date(year, month, start.day().min(last_day)).unwrap_or(start)
}

/// What the borrower owes at a moment, derived from the ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Balance {
    pub principal_outstanding: Money,
    pub interest_accrued: Money,
    /// Instalments whose due date has passed, less what was repaid, when
    /// positive.
    pub arrears: Money,
    /// What settles the account today: principal plus accrued interest.
    pub payoff: Money,
    /// Every penny of interest accrued over the account's life (paid or
    /// not): with the entries, it accounts for every movement.
    pub interest_charged: Money,
    /// Paid beyond what was owed, held for the borrower.
    pub credit: Money,
}

/// Replays `entries` in posting order, accruing daily simple interest on the
/// principal outstanding at the account's nominal rate from one calendar day
/// to the next, up to `now`. A collection pays accrued interest first, then
/// principal; a refund, a drawdown and a negative adjustment add to
/// principal; a positive adjustment reduces it. `None` on arithmetic
/// overflow (no real account comes near it).
pub fn balance(account: &Account, entries: &[Entry], now: OffsetDateTime) -> Option<Balance> {
    let mut ordered: Vec<&Entry> = entries.iter().collect();
    ordered.sort_by(|a, b| (a.posted_at, a.id.as_str()).cmp(&(b.posted_at, b.id.as_str())));
    let rate = i64::from(account.terms.annual_rate_bps);
    let mut state = Replay {
        principal: Money::ZERO,
        interest: Money::ZERO,
        charged: Money::ZERO,
        accrued_to: account.opened_at.date(),
        rate,
    };
    let mut repaid = Money::ZERO;
    for entry in ordered {
        state.accrue_to(entry.posted_at.date())?;
        match entry.kind {
            EntryKind::Collection => {
                let to_interest = entry.amount.min(state.interest);
                state.interest = state.interest.checked_sub(to_interest)?;
                state.principal = state
                    .principal
                    .checked_sub(entry.amount.checked_sub(to_interest)?)?;
            }
            EntryKind::Drawdown | EntryKind::Refund | EntryKind::Adjustment => {
                state.principal = state.principal.checked_sub(entry.amount)?;
            }
        }
        if entry.kind != EntryKind::Drawdown {
            repaid = repaid.checked_add(entry.amount)?;
        }
    }
    state.accrue_to(now.date())?;
    // An instalment is in arrears once its due date has passed unpaid: the
    // borrower has the whole of the day it falls due to pay it.
    let due = Money::sum(
        schedule(account)
            .into_iter()
            .filter(|i| i.due_on < now.date())
            .map(|i| i.amount),
    )?;
    let arrears = due.checked_sub(repaid)?.max(Money::ZERO);
    let owed = state.principal.checked_add(state.interest)?;
    Some(Balance {
        principal_outstanding: state.principal.max(Money::ZERO),
        interest_accrued: state.interest,
        arrears,
        payoff: owed.max(Money::ZERO),
        interest_charged: state.charged,
        credit: owed.checked_neg()?.max(Money::ZERO),
    })
}

struct Replay {
    /// Negative once overpaid.
    principal: Money,
    interest: Money,
    charged: Money,
    accrued_to: Date,
    rate: i64,
}

impl Replay {
    /// Interest for the whole days from `accrued_to` to `day`, on the
    /// principal as it stood, rounded down to the penny.
    fn accrue_to(&mut self, day: Date) -> Option<()> {
        let days = (day - self.accrued_to).whole_days();
        if days <= 0 {
            return Some(());
        }
        let on = self.principal.max(Money::ZERO);
        let interest = on.ratio(self.rate * days, 10_000 * DAYS_IN_YEAR, Rounding::Down)?;
        self.interest = self.interest.checked_add(interest)?;
        self.charged = self.charged.checked_add(interest)?;
        self.accrued_to = self.accrued_to.checked_add(Duration::days(days))?;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{ApplicationId, DecisionId};
    use crate::loan::Offer;
    use crate::servicing::account::AccountStatus;
    use proptest::prelude::*;
    use time::macros::datetime;

    fn account(principal: i64, rate_bps: u32, months: u32) -> Account {
        Account {
            id: AccountId::generate(1, 1),
            owner: Tenant::from_stored("partner:p:test".into()),
            application_id: ApplicationId::generate(1, 2),
            decision_id: DecisionId::generate(1, 3),
            reference: None,
            sub_account_id: None,
            partner_ref: None,
            company_number: "00000401".into(),
            company_name: "Healthy Widgets Ltd".into(),
            status: AccountStatus::Performing,
            terms: Offer {
                amount_pence: Money::pence(principal),
                term_months: months,
                apr: 12.0,
                monthly_repayment_pence: Money::ZERO,
                total_repayable_pence: Money::ZERO,
                is_indicative: false,
                annual_rate_bps: rate_bps,
            },
            payout_bank: "test_bank_strong".into(),
            disbursement_id: "fps_1".into(),
            opened_at: datetime!(2026-01-31 10:00 UTC),
            next_review: None,
            arrangements: Vec::new(),
        }
    }

    fn entry(a: &Account, n: u128, kind: EntryKind, pence: i64, at: OffsetDateTime) -> Entry {
        Entry::new(
            LedgerEntryId::generate(1, n),
            a,
            kind,
            Money::pence(pence),
            None,
            None,
            at,
        )
        .expect("a well-signed entry")
    }

    #[test]
    fn entries_carry_the_sign_of_their_kind() {
        let a = account(1_000_000, 1200, 12);
        let at = a.opened_at;
        let make = |kind, pence| {
            Entry::new(
                LedgerEntryId::generate(1, 1),
                &a,
                kind,
                Money::pence(pence),
                None,
                None,
                at,
            )
        };
        assert!(make(EntryKind::Drawdown, 5).is_err());
        assert!(make(EntryKind::Refund, 5).is_err());
        assert!(make(EntryKind::Collection, -5).is_err());
        assert_eq!(make(EntryKind::Adjustment, 0), Err(BadEntry::Zero));
        assert!(make(EntryKind::Adjustment, -5).is_ok());
    }

    #[test]
    fn interest_accrues_daily_and_a_collection_pays_it_first() {
        let a = account(3_650_000, 1000, 12);
        let drawn = entry(&a, 1, EntryKind::Drawdown, -3_650_000, a.opened_at);
        // £36,500 at 10 %: exactly £10.00 a day.
        let ten_days = a.opened_at + Duration::days(10);
        let b = balance(&a, std::slice::from_ref(&drawn), ten_days).expect("balance");
        assert_eq!(b.interest_accrued, Money::pence(10_000));
        assert_eq!(b.principal_outstanding, Money::pence(3_650_000));
        assert_eq!(b.payoff, Money::pence(3_660_000));
        let paid = entry(&a, 2, EntryKind::Collection, 30_000, ten_days);
        let b = balance(&a, &[drawn.clone(), paid], ten_days).expect("balance");
        assert_eq!(b.interest_accrued, Money::ZERO);
        assert_eq!(b.principal_outstanding, Money::pence(3_630_000));
        // The first instalment falls due on the last day of February.
        assert_eq!(schedule(&a)[0].due_on, time::macros::date!(2026 - 02 - 28));
        let due = datetime!(2026-02-28 09:00 UTC);
        let b = balance(&a, std::slice::from_ref(&drawn), due).expect("balance");
        assert_eq!(
            b.arrears,
            Money::ZERO,
            "the due day is the borrower's to pay"
        );
        let b =
            balance(&a, std::slice::from_ref(&drawn), due + Duration::days(1)).expect("balance");
        assert_eq!(b.arrears, schedule(&a)[0].amount);
    }

    fn kinds() -> impl Strategy<Value = (EntryKind, i64, i64)> {
        (0..3usize, 1i64..500_000, 0i64..40).prop_map(|(k, pence, day)| {
            let kind = [
                EntryKind::Collection,
                EntryKind::Refund,
                EntryKind::Adjustment,
            ][k];
            let signed = match kind {
                EntryKind::Refund => -pence,
                EntryKind::Adjustment if pence % 2 == 0 => -pence,
                _ => pence,
            };
            (kind, signed, day * 9)
        })
    }

    #[test]
    fn an_overpayment_is_a_credit_and_a_refund_of_it_reopens_the_account() {
        use crate::servicing::account::Moved;
        let a = account(1_000_000, 1200, 12);
        let at = a.opened_at;
        let drawn = entry(&a, 1, EntryKind::Drawdown, -1_000_000, at);
        let first = entry(&a, 2, EntryKind::Collection, 600_000, at);
        let second = entry(&a, 3, EntryKind::Collection, 600_000, at);
        let paid = [drawn.clone(), first.clone(), second.clone()];
        let b = balance(&a, &paid, at).expect("balance");
        assert_eq!(b.payoff, Money::ZERO);
        assert_eq!(b.credit, Money::pence(200_000), "nothing paid vanishes");
        let (settled, moved) = a.reviewed(&paid, at).expect("balance");
        assert_eq!(
            (settled.status, moved),
            (AccountStatus::Settled, Some(Moved::Settled))
        );
        // The second payment refunded in full: owed again, reopened.
        let refund = entry(&a, 4, EntryKind::Refund, -600_000, at);
        let refunded = [drawn, first, second, refund];
        let b = balance(&a, &refunded, at).expect("balance");
        assert_eq!((b.payoff, b.credit), (Money::pence(400_000), Money::ZERO));
        let (reopened, moved) = settled.reviewed(&refunded, at).expect("balance");
        assert_eq!(
            (reopened.status, moved),
            (AccountStatus::Performing, Some(Moved::Updated))
        );
    }

    #[test]
    fn an_account_falls_into_arrears_is_cured_and_settles() {
        use crate::servicing::account::Moved;
        let a = account(1_000_000, 1200, 12);
        let drawn = entry(&a, 1, EntryKind::Drawdown, -1_000_000, a.opened_at);
        let first = schedule(&a)[0].clone();
        let before = first.due_on.midnight().assume_utc() - Duration::seconds(1);
        let (same, moved) = a
            .reviewed(std::slice::from_ref(&drawn), before)
            .expect("balance");
        assert_eq!((same.status, moved), (AccountStatus::Performing, None));
        let day_after = first
            .due_on
            .next_day()
            .expect("a date")
            .midnight()
            .assume_utc();
        assert_eq!(same.next_review, Some(day_after));
        let (same, moved) = a
            .reviewed(
                std::slice::from_ref(&drawn),
                day_after - Duration::seconds(1),
            )
            .expect("balance");
        assert_eq!(
            (same.status, moved),
            (AccountStatus::Performing, None),
            "due, not late"
        );
        let on_the_day = day_after;
        let (late, moved) = a
            .reviewed(std::slice::from_ref(&drawn), on_the_day)
            .expect("balance");
        assert_eq!(
            (late.status, moved),
            (AccountStatus::InArrears, Some(Moved::Updated))
        );
        assert_eq!(
            late.next_review, None,
            "payments, not the clock, cure arrears"
        );
        let paid = entry(
            &late,
            2,
            EntryKind::Collection,
            first.amount.as_pence(),
            on_the_day,
        );
        let (cured, moved) = late
            .reviewed(&[drawn.clone(), paid], on_the_day)
            .expect("balance");
        assert_eq!(
            (cured.status, moved),
            (AccountStatus::Performing, Some(Moved::Updated))
        );
        // Paid off early: settled, and the clock leaves it alone.
        let payoff = balance(&a, std::slice::from_ref(&drawn), before)
            .expect("balance")
            .payoff;
        let all = entry(&a, 3, EntryKind::Collection, payoff.as_pence(), before);
        let (done, moved) = a.reviewed(&[drawn.clone(), all], before).expect("balance");
        assert_eq!(
            (done.status, moved),
            (AccountStatus::Settled, Some(Moved::Settled))
        );
        assert_eq!(done.next_review, None);
        // Staff acts: forborne (the clock leaves it), written off.
        use crate::servicing::account::StaffAct;
        let forborne = late
            .staff_act(StaffAct::Forbear, "Grace", "job loss", on_the_day)
            .expect("in arrears");
        assert_eq!(forborne.status, AccountStatus::Forborne);
        assert_eq!(forborne.arrangements.len(), 1);
        let (still, moved) = forborne
            .reviewed(std::slice::from_ref(&drawn), on_the_day)
            .expect("balance");
        assert_eq!((still.status, moved), (AccountStatus::Forborne, None));
        assert!(
            done.staff_act(StaffAct::WriteOff, "Grace", "x", on_the_day)
                .is_err(),
            "settled"
        );
        let closed = forborne
            .staff_act(StaffAct::WriteOff, "Grace", "unrecoverable", on_the_day)
            .expect("forborne");
        assert_eq!(closed.status, AccountStatus::Closed);
        assert!(
            closed
                .staff_act(StaffAct::EndForbearance, "Grace", "x", on_the_day)
                .is_err()
        );
    }

    proptest! {
        /// Every movement is accounted for: what was lent plus the interest
        /// charged equals what was repaid plus what is owed less any credit,
        /// whatever the history; and the order entries are read in does not
        /// matter, only when they were posted.
        #[test]
        fn the_balance_is_derived_from_the_ledger_alone(
            principal in 100_000i64..25_000_000,
            rate in 0u32..4_000,
            history in proptest::collection::vec(kinds(), 0..30),
            days in 0i64..400,
        ) {
            let a = account(principal, rate, 24);
            let mut entries = vec![entry(&a, 0, EntryKind::Drawdown, -principal, a.opened_at)];
            for (n, (kind, pence, day)) in history.iter().enumerate() {
                let at = a.opened_at + Duration::days(*day);
                entries.push(entry(&a, n as u128 + 1, *kind, *pence, at));
            }
            let now = a.opened_at + Duration::days(days.max(360));
            let b = balance(&a, &entries, now).expect("no overflow");
            let repaid: i64 = entries.iter().skip(1).map(|e| e.amount.as_pence()).sum();
            prop_assert_eq!(
                principal + b.interest_charged.as_pence(),
                repaid + b.payoff.as_pence() - b.credit.as_pence()
            );
            prop_assert!(b.principal_outstanding >= Money::ZERO);
            prop_assert!(b.payoff >= b.principal_outstanding || b.credit > Money::ZERO);
            let mut reversed = entries.clone();
            reversed.reverse();
            prop_assert_eq!(balance(&a, &reversed, now), Some(b));
        }
    }
}
