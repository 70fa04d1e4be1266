//! The double-entry ledger (issue #47): a chart of accounts for the
//! lender and for each loan, transfers of balanced postings that cannot
//! be made unbalanced, two-phase transfers for what a rail carries, and
//! the balances, trial balance and loan positions the transfers imply.
//! docs/guide/src/ledger.md is the operator's and the finance team's reading of it.

pub mod book;
pub mod chart;
pub mod loan;
pub mod movements;
pub mod reconciliation;
pub mod transfer;

#[cfg(test)]
mod properties {
    //! Any sequence of movements keeps every transfer balanced and the
    //! trial balance equal, and each loan's position is what its postings
    //! imply.

    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use time::OffsetDateTime;
    use time::macros::datetime;

    use super::book::{Book, Position};
    use super::chart::{LedgerAccount, Loan};
    use super::movements as m;
    use super::transfer::{Phase, Side, Transfer};
    use crate::ids::{AccountId, HubId};
    use crate::money::Money;

    const AT: OffsetDateTime = datetime!(2026-11-30 12:00 UTC);
    const LOANS: u128 = 3;

    #[derive(Clone, Debug)]
    enum Outcome {
        Settles,
        Rejected,
        /// Settles, then the payer's bank returns it.
        Returned,
    }

    #[derive(Clone, Debug)]
    enum Op {
        Drawdown(u128, i64, bool),
        Accrue(u128, i64),
        Fee(u128, i64),
        Collect(u128, i64, Outcome),
        Refund(u128, bool),
        WriteOff(u128),
        RevenueShare(i64),
        Payout(i64, bool),
        Unidentified(i64),
    }

    fn outcome() -> impl Strategy<Value = Outcome> {
        prop_oneof![
            Just(Outcome::Settles),
            Just(Outcome::Rejected),
            Just(Outcome::Returned)
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        let loan = 0..LOANS;
        let pence = 1i64..5_000_000;
        prop_oneof![
            (loan.clone(), pence.clone(), any::<bool>())
                .prop_map(|(l, p, s)| Op::Drawdown(l, p, s)),
            (loan.clone(), 1i64..50_000).prop_map(|(l, p)| Op::Accrue(l, p)),
            (loan.clone(), 1i64..10_000).prop_map(|(l, p)| Op::Fee(l, p)),
            (loan.clone(), pence.clone(), outcome()).prop_map(|(l, p, o)| Op::Collect(l, p, o)),
            (loan.clone(), any::<bool>()).prop_map(|(l, s)| Op::Refund(l, s)),
            loan.prop_map(Op::WriteOff),
            (1i64..100_000).prop_map(Op::RevenueShare),
            (1i64..100_000, any::<bool>()).prop_map(|(p, s)| Op::Payout(p, s)),
            (1i64..100_000).prop_map(Op::Unidentified),
        ]
    }

    /// Applies what `op` moves to `book`, and records each transfer.
    struct Run {
        book: Book,
        applied: Vec<Transfer>,
        next: u64,
    }

    impl Run {
        fn id(&mut self) -> String {
            self.next += 1;
            format!("tr_{}", self.next)
        }

        fn apply(&mut self, t: Transfer) {
            self.book.apply(&t).expect("a balanced transfer applies");
            self.applied.push(t);
        }

        /// A rail's movement: pending, then posted or voided.
        fn through_rail(&mut self, pending: Transfer, settles: bool) -> Option<Transfer> {
            self.apply(pending.clone());
            let id = self.id();
            let closed = if settles {
                pending.post(id, AT)
            } else {
                pending.void(id, AT)
            }
            .expect("a pending transfer closes");
            self.apply(closed.clone());
            settles.then_some(closed)
        }

        fn run(&mut self, op: &Op) {
            let loan = |n: u128| AccountId::generate(1, n);
            let id = self.id();
            match op {
                Op::Drawdown(l, p, settles) => {
                    let t = m::drawdown(&id, &loan(*l), Money::pence(*p), AT).unwrap();
                    self.through_rail(t, *settles);
                }
                Op::Accrue(l, p) => {
                    self.apply(m::accrual(&id, &loan(*l), Money::pence(*p), AT).unwrap())
                }
                Op::Fee(l, p) => self.apply(m::fee(&id, &loan(*l), Money::pence(*p), AT).unwrap()),
                Op::Collect(l, p, outcome) => {
                    let owed = self.book.position_available(&loan(*l)).unwrap();
                    let t = m::collection(&id, &loan(*l), Money::pence(*p), &owed, AT).unwrap();
                    let settles = !matches!(outcome, Outcome::Rejected);
                    if let Some(settled) = self.through_rail(t, settles)
                        && matches!(outcome, Outcome::Returned)
                    {
                        let id = self.id();
                        self.apply(m::returned(&id, &settled, AT).unwrap());
                    }
                }
                Op::Refund(l, settles) => {
                    let credit = self.book.position_available(&loan(*l)).unwrap().credit;
                    if credit > Money::ZERO {
                        let t = m::refund(&id, &loan(*l), credit, AT).unwrap();
                        self.through_rail(t, *settles);
                    }
                }
                Op::WriteOff(l) => {
                    let owed = self.book.position_available(&loan(*l)).unwrap();
                    if owed.payoff().unwrap() > Money::ZERO {
                        self.apply(m::write_off(&id, &loan(*l), &owed, AT).unwrap());
                    }
                }
                Op::RevenueShare(p) => {
                    self.apply(m::revenue_share(&id, Money::pence(*p), AT).unwrap())
                }
                Op::Payout(p, settles) => {
                    let t = m::payout(&id, Money::pence(*p), AT).unwrap();
                    self.through_rail(t, *settles);
                }
                Op::Unidentified(p) => {
                    self.apply(m::unidentified(&id, Money::pence(*p), AT).unwrap())
                }
            }
        }
    }

    /// A loan's position summed straight from the posted transfers.
    fn implied(applied: &[Transfer], loan: &AccountId) -> Position {
        let mut by_part: BTreeMap<Loan, i64> = BTreeMap::new();
        for t in applied {
            if matches!(t.phase(), Phase::Pending | Phase::Void { .. }) {
                continue;
            }
            for p in t.postings() {
                if let LedgerAccount::Loan(id, part) = &p.account
                    && id == loan
                {
                    let debit_normal = !matches!(part, Loan::Credit);
                    let sign = if (p.side == Side::Debit) == debit_normal {
                        1
                    } else {
                        -1
                    };
                    *by_part.entry(*part).or_default() += sign * p.amount.as_pence();
                }
            }
        }
        let of = |part| Money::pence(by_part.get(&part).copied().unwrap_or(0));
        Position {
            principal: of(Loan::Principal),
            interest: of(Loan::Interest),
            fees: of(Loan::Fees),
            credit: of(Loan::Credit),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn any_sequence_of_movements_keeps_the_books_balanced(ops in proptest::collection::vec(op(), 1..60)) {
            let mut run = Run { book: Book::default(), applied: Vec::new(), next: 0 };
            for op in &ops {
                run.run(op);
                let trial = run.book.trial_balance().unwrap();
                prop_assert_eq!(trial.total_debits, trial.total_credits);
            }
            for t in &run.applied {
                let debits = Money::sum(t.postings().iter().filter(|p| p.side == Side::Debit).map(|p| p.amount));
                let credits = Money::sum(t.postings().iter().filter(|p| p.side == Side::Credit).map(|p| p.amount));
                prop_assert_eq!(debits, credits);
            }
            for n in 0..LOANS {
                let loan = AccountId::generate(1, n);
                let position = run.book.position(&loan).unwrap();
                prop_assert_eq!(position, implied(&run.applied, &loan));
                prop_assert!(position.credit >= Money::ZERO, "a credit is never taken below zero");
                prop_assert!(position.fees >= Money::ZERO && position.interest >= Money::ZERO);
                prop_assert!(position.principal >= Money::ZERO, "a collection never takes more principal than was lent");
                for part in Loan::ALL {
                    let pending = run.book.pending(&LedgerAccount::Loan(loan.clone(), part));
                    prop_assert_eq!(pending, Default::default(), "every rail movement closed");
                }
            }
        }
    }

    #[test]
    fn an_overpayment_is_kept_as_the_borrowers_credit_and_refunded_from_it() {
        let mut run = Run {
            book: Book::default(),
            applied: Vec::new(),
            next: 0,
        };
        run.run(&Op::Drawdown(0, 10_000, true));
        run.run(&Op::Accrue(0, 500));
        run.run(&Op::Collect(0, 12_000, Outcome::Settles));
        let loan = AccountId::generate(1, 0);
        let position = run.book.position(&loan).unwrap();
        assert_eq!(
            position,
            Position {
                principal: Money::ZERO,
                interest: Money::ZERO,
                fees: Money::ZERO,
                credit: Money::pence(1_500),
            }
        );
        run.run(&Op::Refund(0, true));
        assert_eq!(run.book.position(&loan).unwrap().credit, Money::ZERO);
    }

    #[test]
    fn a_pending_movement_is_not_a_posted_balance_and_a_void_moves_nothing() {
        let mut book = Book::default();
        let loan = AccountId::generate(1, 0);
        let pending = m::drawdown("d", &loan, Money::pence(10_000), AT).unwrap();
        book.apply(&pending).unwrap();
        assert_eq!(book.position(&loan).unwrap().principal, Money::ZERO);
        let principal = LedgerAccount::Loan(loan.clone(), Loan::Principal);
        assert_eq!(book.pending(&principal).debits, Money::pence(10_000));
        assert_eq!(
            book.apply(&pending),
            Err(super::book::Refused::Repeated("d".into()))
        );
        book.apply(&pending.void("v", AT).unwrap()).unwrap();
        assert_eq!(book.pending(&principal), Default::default());
        assert_eq!(book.trial_balance().unwrap().total_debits, Money::ZERO);
        assert!(
            book.apply(&pending.post("p", AT).unwrap()).is_err(),
            "a voided transfer is closed"
        );
    }
}
