//! A servicing account's balance (hub seed, Resources → Account → balance),
//! derived from the double-entry ledger (issue #47 item 5): the postings of
//! the loan's posted transfers say what is owed and what is held for the
//! borrower; the interest its terms have charged since the last accrual,
//! which the ledger posts only when money moves, is replayed from the
//! principal those postings show over time. Nothing stores a balance.
//! docs/decisions.md records the interest model.

use time::{Date, Duration, OffsetDateTime};

use crate::ids::AccountId;
use crate::ledger::chart::{LedgerAccount, Loan};
use crate::ledger::loan::LoanLedger;
use crate::ledger::transfer::{Movement, Phase, Side, Transfer};
use crate::money::{Money, Rounding};
use crate::servicing::account::Account;

/// Days in the year that daily interest divides the annual rate by
/// (actual/365, the UK convention for business loans).
pub const DAYS_IN_YEAR: i64 = 365;

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
    /// Interest posted and not yet paid, and what the terms have charged
    /// since the last accrual.
    pub interest_accrued: Money,
    /// Instalments whose due date has passed, less what was repaid, when
    /// positive.
    pub arrears: Money,
    /// What settles the account today: principal, interest and fees.
    pub payoff: Money,
    /// Every penny of interest the terms have charged over the account's
    /// life (paid or not, posted or not).
    pub interest_charged: Money,
    /// Paid beyond what was owed, held for the borrower.
    pub credit: Money,
}

/// The transfers a balance counts: posted at once, or confirmed by the
/// rail. A pending transfer has not moved money yet; a voided one never
/// will.
pub(crate) fn posted(transfers: &[Transfer]) -> impl Iterator<Item = &Transfer> {
    transfers.iter().filter(|t| is_posted(t))
}

/// Whether `transfer` counts in a balance (see `posted`).
pub(crate) fn is_posted(transfer: &Transfer) -> bool {
    matches!(transfer.phase(), Phase::Single | Phase::Post { .. })
}

/// What `transfer` moves on `loan`'s accounts as the borrower sees it:
/// credits (paid off, or held for them) positive, debits (lent, charged,
/// handed back) negative.
pub fn borrower_amount(loan: &AccountId, transfer: &Transfer) -> Option<Money> {
    signed(
        transfer,
        |account| matches!(account, LedgerAccount::Loan(id, _) if id == loan),
    )
    .and_then(Money::checked_neg)
}

/// The debits less the credits of `transfer`'s postings to accounts `of`
/// picks.
fn signed(transfer: &Transfer, of: impl Fn(&LedgerAccount) -> bool) -> Option<Money> {
    transfer
        .postings()
        .iter()
        .filter(|p| of(&p.account))
        .try_fold(Money::ZERO, |sum, p| match p.side {
            Side::Debit => sum.checked_add(p.amount),
            Side::Credit => sum.checked_sub(p.amount),
        })
}

/// `account`'s balance at `now` from `transfers` (every transfer touching
/// the loan, in any order). `None` if they do not apply (a close with no
/// pending transfer) or on arithmetic overflow (no real account comes
/// near it).
pub fn balance(account: &Account, transfers: &[Transfer], now: OffsetDateTime) -> Option<Balance> {
    let loan = LoanLedger::of(&account.id, transfers).ok()?;
    let held = loan.position()?;
    let charged = interest_charged(account, transfers, now)?;
    let unposted = charged.checked_sub(loan.accrued())?.max(Money::ZERO);
    let interest = held.interest.checked_add(unposted)?;
    let payoff = Money::sum([held.principal, interest, held.fees])?;
    // An instalment is in arrears once its due date has passed unpaid: the
    // borrower has the whole of the day it falls due to pay it.
    let due = Money::sum(
        schedule(account)
            .into_iter()
            .filter(|i| i.due_on < now.date())
            .map(|i| i.amount),
    )?;
    let arrears = due.checked_sub(repaid(&account.id, transfers)?)?;
    Some(Balance {
        principal_outstanding: held.principal.max(Money::ZERO),
        interest_accrued: interest,
        arrears: arrears.max(Money::ZERO),
        payoff: payoff.max(Money::ZERO),
        interest_charged: charged,
        credit: held.credit.max(Money::ZERO),
    })
}

/// What the borrower has paid, less what was handed back or returned.
fn repaid(loan: &AccountId, transfers: &[Transfer]) -> Option<Money> {
    posted(transfers)
        .filter(|t| {
            matches!(
                t.movement(),
                Movement::Collection | Movement::Refund | Movement::Return
            )
        })
        .try_fold(Money::ZERO, |sum, t| {
            sum.checked_add(borrower_amount(loan, t)?)
        })
}

/// The interest `account`'s terms have charged by `now`: daily simple
/// interest on the principal the postings show outstanding, at the
/// nominal rate, actual/365, from one calendar day to the next, rounded
/// down to the penny for each stretch between changes of principal.
pub fn interest_charged(
    account: &Account,
    transfers: &[Transfer],
    now: OffsetDateTime,
) -> Option<Money> {
    let principal = LedgerAccount::Loan(account.id.clone(), Loan::Principal);
    let mut moves = Vec::new();
    for t in posted(transfers) {
        let change = signed(t, |a| *a == principal)?;
        if change != Money::ZERO {
            moves.push((t.at(), t.id(), change));
        }
    }
    moves.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut replay = Replay {
        principal: Money::ZERO,
        charged: Money::ZERO,
        accrued_to: account.opened_at.date(),
        rate: i64::from(account.terms.annual_rate_bps),
    };
    for (at, _, change) in moves {
        replay.accrue_to(at.date())?;
        replay.principal = replay.principal.checked_add(change)?;
    }
    replay.accrue_to(now.date())?;
    Some(replay.charged)
}

struct Replay {
    principal: Money,
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
        self.charged = self.charged.checked_add(interest)?;
        self.accrued_to = self.accrued_to.checked_add(Duration::days(days))?;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{ApplicationId, DecisionId, HubId};
    use crate::ledger::book::Book;
    use crate::ledger::movements;
    use crate::loan::Offer;
    use crate::servicing::account::AccountStatus;
    use crate::servicing::statement::{EntryKind, statement};
    use crate::tenant::Tenant;
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

    /// How a collection's payment ends at the payer's bank.
    #[derive(Clone, Copy, Debug)]
    enum Ends {
        Settled,
        Rejected,
        Returned,
    }

    /// A loan's transfers made as the flows make them: the interest
    /// charged posted before each movement, collections held pending and
    /// closed by the bank's answer.
    struct Loan {
        account: Account,
        transfers: Vec<Transfer>,
        settled: Vec<Transfer>,
        n: u32,
    }

    impl Loan {
        fn drawn(account: Account) -> Self {
            let at = account.opened_at;
            let pending =
                movements::drawdown("dsb_1", &account.id, account.principal(), at).unwrap();
            let posted = pending.post("dsb_1.settled", at).unwrap();
            Self {
                account,
                transfers: vec![pending, posted],
                settled: Vec::new(),
                n: 0,
            }
        }

        fn ledger(&self) -> LoanLedger {
            LoanLedger::of(&self.account.id, &self.transfers).unwrap()
        }

        fn accrue(&mut self, at: OffsetDateTime) {
            let charged = interest_charged(&self.account, &self.transfers, at).unwrap();
            if let Some(accrual) = self.ledger().accrual_to(charged, at).unwrap() {
                self.transfers.push(accrual);
            }
        }

        fn collect(&mut self, pence: i64, at: OffsetDateTime, ends: Ends) {
            self.accrue(at);
            self.n += 1;
            let owed = self.ledger().available().unwrap();
            let payment = format!("pay_{}", self.n);
            let pending = movements::collection(
                &format!("{payment}.1"),
                &self.account.id,
                Money::pence(pence),
                &owed,
                at,
            )
            .unwrap()
            .for_payment(&payment);
            self.transfers.push(pending.clone());
            match ends {
                Ends::Rejected => {
                    let void = pending.void(format!("{payment}.failed"), at).unwrap();
                    self.transfers.push(void);
                }
                Ends::Settled | Ends::Returned => {
                    let post = pending.post(format!("{payment}.settled"), at).unwrap();
                    self.transfers.push(post);
                    if let Ends::Returned = ends {
                        let back =
                            movements::returned(&format!("{payment}.returned"), &pending, at)
                                .unwrap();
                        self.transfers.push(back);
                    } else {
                        self.settled.push(pending);
                    }
                }
            }
        }

        /// The oldest settled collection not yet refunded, paid back.
        fn refund(&mut self, at: OffsetDateTime) {
            if self.settled.is_empty() {
                return;
            }
            let collected = self.settled.remove(0);
            let id = format!("rfd_{}", collected.id());
            let pending = movements::refund_of(&id, &collected, at).unwrap();
            let post = pending.post(format!("{id}.settled"), at).unwrap();
            self.transfers.extend([pending, post]);
        }

        fn write_off(&mut self, at: OffsetDateTime) {
            self.accrue(at);
            let owed = self.ledger().position().unwrap();
            let id = format!("{}.write_off", self.account.id);
            let once = self.transfers.iter().all(|t| t.id() != id);
            if once && owed.payoff().unwrap() > Money::ZERO {
                let t = movements::write_off(&id, &self.account.id, &owed, at).unwrap();
                self.transfers.push(t);
            }
        }

        fn balance(&self, at: OffsetDateTime) -> Balance {
            balance(&self.account, &self.transfers, at).unwrap()
        }
    }

    #[test]
    fn interest_accrues_daily_and_a_collection_pays_it_first() {
        let mut loan = Loan::drawn(account(3_650_000, 1000, 12));
        let opened = loan.account.opened_at;
        // £36,500 at 10 %: exactly £10.00 a day, owed before it is posted.
        let ten_days = opened + Duration::days(10);
        let b = loan.balance(ten_days);
        assert_eq!(b.interest_accrued, Money::pence(10_000));
        assert_eq!(b.principal_outstanding, Money::pence(3_650_000));
        assert_eq!(b.payoff, Money::pence(3_660_000));
        loan.collect(30_000, ten_days, Ends::Settled);
        let b = loan.balance(ten_days);
        assert_eq!(b.interest_accrued, Money::ZERO);
        assert_eq!(b.principal_outstanding, Money::pence(3_630_000));
        assert_eq!(b.interest_charged, Money::pence(10_000));
        let lines = statement(&loan.account, &loan.transfers).unwrap();
        let shown: Vec<_> = lines
            .iter()
            .map(|e| (e.kind, e.amount.as_pence()))
            .collect();
        assert_eq!(
            shown,
            [
                (EntryKind::Collection, 30_000),
                (EntryKind::Interest, -10_000),
                (EntryKind::Drawdown, -3_650_000),
            ]
        );
        assert_eq!(lines[0].payment_id.as_deref(), Some("pay_1"));
        // The first instalment falls due on the last day of February.
        let fresh = Loan::drawn(account(3_650_000, 1000, 12));
        assert_eq!(
            schedule(&fresh.account)[0].due_on,
            time::macros::date!(2026 - 02 - 28)
        );
        let due = datetime!(2026-02-28 09:00 UTC);
        assert_eq!(
            fresh.balance(due).arrears,
            Money::ZERO,
            "the due day is the borrower's to pay"
        );
        assert_eq!(
            fresh.balance(due + Duration::days(1)).arrears,
            schedule(&fresh.account)[0].amount
        );
    }

    #[test]
    fn a_pending_collection_moves_nothing_until_the_bank_settles_it() {
        let mut loan = Loan::drawn(account(1_000_000, 0, 12));
        let at = loan.account.opened_at;
        let owed = loan.ledger().available().unwrap();
        let pending =
            movements::collection("pay_9.1", &loan.account.id, Money::pence(500), &owed, at)
                .unwrap();
        loan.transfers.push(pending);
        assert_eq!(loan.balance(at).payoff, Money::pence(1_000_000));
        assert_eq!(statement(&loan.account, &loan.transfers).unwrap().len(), 1);
    }

    #[test]
    fn an_overpayment_is_a_credit_and_a_refund_of_it_reopens_the_account() {
        use crate::servicing::account::Moved;
        let mut loan = Loan::drawn(account(1_000_000, 1200, 12));
        let at = loan.account.opened_at;
        loan.collect(600_000, at, Ends::Settled);
        loan.collect(600_000, at, Ends::Settled);
        let b = loan.balance(at);
        assert_eq!(b.payoff, Money::ZERO);
        assert_eq!(b.credit, Money::pence(200_000), "nothing paid vanishes");
        let (settled, moved) = loan.account.reviewed(&loan.transfers, at).unwrap();
        assert_eq!(
            (settled.status, moved),
            (AccountStatus::Settled, Some(Moved::Settled))
        );
        // The second payment refunded in full: owed again, reopened.
        loan.settled.remove(0);
        loan.refund(at);
        let b = loan.balance(at);
        assert_eq!((b.payoff, b.credit), (Money::pence(400_000), Money::ZERO));
        let (reopened, moved) = settled.reviewed(&loan.transfers, at).unwrap();
        assert_eq!(
            (reopened.status, moved),
            (AccountStatus::Performing, Some(Moved::Updated))
        );
    }

    #[test]
    fn an_account_falls_into_arrears_is_cured_and_settles() {
        use crate::servicing::account::{Moved, StaffAct};
        let drawn = Loan::drawn(account(1_000_000, 1200, 12));
        let a = drawn.account.clone();
        let first = schedule(&a)[0].clone();
        let before = first.due_on.midnight().assume_utc() - Duration::seconds(1);
        let (same, moved) = a.reviewed(&drawn.transfers, before).unwrap();
        assert_eq!((same.status, moved), (AccountStatus::Performing, None));
        let day_after = first.due_on.next_day().unwrap().midnight().assume_utc();
        assert_eq!(same.next_review, Some(day_after));
        let (same, moved) = a
            .reviewed(&drawn.transfers, day_after - Duration::seconds(1))
            .unwrap();
        assert_eq!(
            (same.status, moved),
            (AccountStatus::Performing, None),
            "due, not late"
        );
        let (late, moved) = a.reviewed(&drawn.transfers, day_after).unwrap();
        assert_eq!(
            (late.status, moved),
            (AccountStatus::InArrears, Some(Moved::Updated))
        );
        assert_eq!(
            late.next_review, None,
            "payments, not the clock, cure arrears"
        );
        let mut paid = Loan::drawn(a.clone());
        paid.collect(first.amount.as_pence(), day_after, Ends::Settled);
        let (cured, moved) = late.reviewed(&paid.transfers, day_after).unwrap();
        assert_eq!(
            (cured.status, moved),
            (AccountStatus::Performing, Some(Moved::Updated))
        );
        // A payment the bank returned does not cure them.
        let mut returned = Loan::drawn(a.clone());
        returned.collect(first.amount.as_pence(), day_after, Ends::Returned);
        let (still, _) = late.reviewed(&returned.transfers, day_after).unwrap();
        assert_eq!(still.status, AccountStatus::InArrears);
        // Paid off early: settled, and the clock leaves it alone.
        let mut early = Loan::drawn(a.clone());
        let payoff = early.balance(before).payoff;
        early.collect(payoff.as_pence(), before, Ends::Settled);
        let (done, moved) = a.reviewed(&early.transfers, before).unwrap();
        assert_eq!(
            (done.status, moved),
            (AccountStatus::Settled, Some(Moved::Settled))
        );
        assert_eq!(done.next_review, None);
        // Staff acts: forborne (the clock leaves it), written off.
        let forborne = late
            .staff_act(StaffAct::Forbear, "Grace", "job loss", day_after)
            .unwrap();
        assert_eq!(forborne.status, AccountStatus::Forborne);
        assert_eq!(forborne.arrangements.len(), 1);
        let (still, moved) = forborne.reviewed(&drawn.transfers, day_after).unwrap();
        assert_eq!((still.status, moved), (AccountStatus::Forborne, None));
        assert!(
            done.staff_act(StaffAct::WriteOff, "Grace", "x", day_after)
                .is_err(),
            "settled"
        );
        let closed = forborne
            .staff_act(StaffAct::WriteOff, "Grace", "unrecoverable", day_after)
            .unwrap();
        assert_eq!(closed.status, AccountStatus::Closed);
        assert!(
            closed
                .staff_act(StaffAct::EndForbearance, "Grace", "x", day_after)
                .is_err()
        );
    }

    /// One step of a loan's life: a collection ending as the bank says, a
    /// refund of the oldest settled one, or a write-off.
    #[derive(Clone, Debug)]
    enum Step {
        Collect(i64, Ends),
        Refund,
        WriteOff,
    }

    fn steps() -> impl Strategy<Value = (Step, i64)> {
        let ends = prop_oneof![
            Just(Ends::Settled),
            Just(Ends::Rejected),
            Just(Ends::Returned)
        ];
        let step = prop_oneof![
            8 => (1i64..600_000, ends).prop_map(|(p, e)| Step::Collect(p, e)),
            2 => Just(Step::Refund),
            1 => Just(Step::WriteOff),
        ];
        (step, 0i64..20)
    }

    proptest! {
        /// Whatever happens to a loan — drawdown, accruals, collections
        /// settled, rejected or returned, refunds, a write-off — every
        /// transfer balances, the trial balance's debits equal its
        /// credits, the borrower's balance is what the postings imply, the
        /// statement sums to it, and the order transfers are read in does
        /// not matter.
        #[test]
        fn the_balance_and_the_statement_are_what_the_postings_imply(
            principal in 100_000i64..25_000_000,
            rate in 0u32..4_000,
            history in proptest::collection::vec(steps(), 0..30),
            days in 0i64..400,
        ) {
            let mut loan = Loan::drawn(account(principal, rate, 24));
            let mut at = loan.account.opened_at;
            for (step, gap) in history {
                at += Duration::days(gap);
                match step {
                    Step::Collect(pence, ends) => loan.collect(pence, at, ends),
                    Step::Refund => loan.refund(at),
                    Step::WriteOff => loan.write_off(at),
                }
            }
            let now = at + Duration::days(days);
            let mut book = Book::default();
            for t in loan.transfers.iter().filter(|t| t.phase().closes().is_none()) {
                book.apply(t).unwrap();
            }
            for t in loan.transfers.iter().filter(|t| t.phase().closes().is_some()) {
                book.apply(t).unwrap();
            }
            let trial = book.trial_balance().unwrap();
            prop_assert_eq!(trial.total_debits, trial.total_credits);
            let held = book.position(&loan.account.id).unwrap();
            let b = loan.balance(now);
            prop_assert_eq!(b.principal_outstanding, held.principal);
            prop_assert_eq!(b.credit, held.credit);
            let unposted = b.interest_charged.as_pence() - loan.ledger().accrued().as_pence();
            prop_assert!(unposted >= 0);
            prop_assert_eq!(b.interest_accrued.as_pence(), held.interest.as_pence() + unposted);
            prop_assert_eq!(
                b.payoff.as_pence(),
                held.principal.as_pence() + b.interest_accrued.as_pence() + held.fees.as_pence()
            );
            let lines = statement(&loan.account, &loan.transfers).unwrap();
            let sum: i64 = lines.iter().map(|e| e.amount.as_pence()).sum();
            prop_assert_eq!(sum, held.credit.as_pence() - held.payoff().unwrap().as_pence());
            let mut ids: Vec<_> = lines.iter().map(|e| e.id.clone()).collect();
            ids.dedup();
            prop_assert_eq!(ids.len(), lines.len(), "one id per entry");
            let mut reversed = loan.transfers.clone();
            reversed.reverse();
            prop_assert_eq!(balance(&loan.account, &reversed, now), Some(b));
            prop_assert_eq!(statement(&loan.account, &reversed), Some(lines));
        }
    }
}
