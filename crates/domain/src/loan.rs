//! Loan arithmetic in integer pence: a level-payment amortisation schedule whose
//! final instalment absorbs rounding, and the APR solved from its cash flows.
//!
//! Only IEEE basic operations (no `powf`, no `exp`) are used on floats, so the
//! results are identical on every machine.

use crate::money::Money;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Offer {
    pub amount_pence: Money,
    pub term_months: u32,
    /// Representative APR in percent, one decimal place.
    pub apr: f64,
    pub monthly_repayment_pence: Money,
    pub total_repayable_pence: Money,
    pub is_indicative: bool,
    /// Nominal annual interest rate in basis points, the input to the schedule.
    pub annual_rate_bps: u32,
}

/// Monthly instalments; every one equals the level payment except the last.
pub fn schedule(principal: i64, annual_rate_bps: u32, term_months: u32) -> Vec<i64> {
    let n = term_months.max(1);
    let level = level_payment(principal, annual_rate_bps, n);
    let mut balance = i128::from(principal);
    let mut out = Vec::with_capacity(n as usize);
    for k in 1..=n {
        let interest = monthly_interest(balance, annual_rate_bps);
        let due = if k == n {
            balance + interest
        } else {
            i128::from(level).min(balance + interest)
        };
        balance = balance + interest - due;
        out.push(due as i64);
    }
    out
}

/// Interest for one month on `balance` pence, as the schedule charges it.
pub fn monthly_interest_pence(balance: i64, annual_rate_bps: u32) -> Option<i64> {
    i64::try_from(monthly_interest(i128::from(balance), annual_rate_bps)).ok()
}

/// Interest for one month, rounded half up to the penny.
fn monthly_interest(balance: i128, annual_rate_bps: u32) -> i128 {
    let numerator = balance * i128::from(annual_rate_bps);
    let denominator = 120_000; // 12 months × 10,000 bps
    (numerator + denominator / 2) / denominator
}

fn level_payment(principal: i64, annual_rate_bps: u32, n: u32) -> i64 {
    if annual_rate_bps == 0 {
        return (principal + i64::from(n) - 1) / i64::from(n);
    }
    let r = f64::from(annual_rate_bps) / 120_000.0;
    let growth = pow(1.0 + r, n);
    let payment = principal as f64 * r * growth / (growth - 1.0);
    payment.round() as i64
}

fn pow(base: f64, n: u32) -> f64 {
    (0..n).fold(1.0, |acc, _| acc * base)
}

/// Annual percentage rate, in percent to one decimal place, for an advance of
/// `principal` repaid by `instalments` at monthly intervals: the rate `i` that
/// makes the present value of the instalments equal the advance, annualised as
/// `(1 + i)^12 − 1` (the UK consumer-credit convention, used here for comparability).
pub fn apr_percent(principal: i64, instalments: &[i64]) -> f64 {
    let present_value = |i: f64| -> f64 {
        let mut discount = 1.0;
        let mut pv = 0.0;
        for &p in instalments {
            discount /= 1.0 + i;
            pv += p as f64 * discount;
        }
        pv
    };
    let target = principal as f64;
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    if present_value(lo) <= target {
        return 0.0;
    }
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if present_value(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let annual = pow(1.0 + (lo + hi) / 2.0, 12) - 1.0;
    (annual * 1000.0).round() / 10.0
}

pub fn offer(principal: i64, annual_rate_bps: u32, term_months: u32) -> Offer {
    let instalments = schedule(principal, annual_rate_bps, term_months);
    Offer {
        amount_pence: Money::pence(principal),
        term_months,
        apr: apr_percent(principal, &instalments),
        monthly_repayment_pence: Money::pence(instalments.first().copied().unwrap_or(0)),
        // The schedule is bounded by the product's limits (at most 60
        // instalments of at most the principal plus its interest), far from
        // overflow; an overflow would still be caught, not wrapped.
        total_repayable_pence: Money::sum(instalments.iter().copied().map(Money::pence))
            .unwrap_or(Money::pence(i64::MAX)),
        is_indicative: true,
        annual_rate_bps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_example_ten_thousand_at_twelve_percent_over_twelve_months() {
        // £10,000 at 12% nominal (1% a month) over 12 months: level payment £888.49.
        let s = schedule(1_000_000, 1200, 12);
        assert_eq!(s.len(), 12);
        assert_eq!(s[0], 88_849);
        let total: i64 = s.iter().sum();
        // 11 × 888.49 + final; final absorbs rounding and stays within pennies.
        assert!((s[11] - 88_849).abs() <= 5, "final {}", s[11]);
        assert_eq!(total, 11 * 88_849 + s[11]);
        // Effective annual rate of 1%/month is 12.68…% → 12.7.
        assert_eq!(apr_percent(1_000_000, &s), 12.7);
    }

    #[test]
    fn schedule_repays_exactly_principal_plus_interest() {
        for (p, bps, n) in [
            (5_000, 2500, 3),
            (250_000_000, 900, 60),
            (1_234_567, 1999, 36),
        ] {
            let s = schedule(p, bps, n);
            // Re-run the balance: must end at exactly zero.
            let mut balance = i128::from(p);
            for due in &s {
                balance += monthly_interest(balance, bps);
                balance -= i128::from(*due);
            }
            assert_eq!(balance, 0, "p={p} bps={bps} n={n}");
            assert!(s.iter().all(|&x| x > 0));
        }
    }

    #[test]
    fn zero_rate_has_zero_apr_and_no_interest() {
        let s = schedule(1_000, 0, 3);
        assert_eq!(s.iter().sum::<i64>(), 1_000);
        assert_eq!(apr_percent(1_000, &s), 0.0);
    }

    #[test]
    fn offer_fields_are_consistent() {
        let o = offer(2_500_000, 1500, 24);
        assert_eq!(
            o.monthly_repayment_pence,
            Money::pence(schedule(2_500_000, 1500, 24)[0])
        );
        assert!(o.total_repayable_pence > o.amount_pence);
        assert!(o.apr > 15.0 && o.apr < 17.0, "{}", o.apr);
        assert!(o.is_indicative);
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// The annual rate `(1 + i)^12 − 1` of the monthly rate `i` that makes
        /// the instalments' present value equal the advance, unrounded.
        fn exact_apr(principal: i64, instalments: &[i64]) -> f64 {
            let pv = |i: f64| {
                instalments
                    .iter()
                    .enumerate()
                    .map(|(k, &p)| p as f64 / (1.0 + i).powi(k as i32 + 1))
                    .sum::<f64>()
            };
            let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
            for _ in 0..200 {
                let mid = (lo + hi) / 2.0;
                if pv(mid) > principal as f64 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            ((1.0 + lo).powi(12) - 1.0) * 100.0
        }

        proptest! {
            /// The total repayable is the sum of the instalments, and the
            /// schedule repays the principal to the penny.
            #[test]
            fn total_repayable_is_the_sum_of_the_instalments(
                principal in 100_000i64..=25_000_000, bps in 0u32..=5_000, term in 3u32..=60,
            ) {
                let o = offer(principal, bps, term);
                let s = schedule(principal, bps, term);
                prop_assert_eq!(s.len() as u32, term);
                prop_assert_eq!(o.total_repayable_pence.as_pence(), s.iter().sum::<i64>());
                prop_assert!(o.total_repayable_pence.as_pence() >= principal);
                prop_assert_eq!(o.monthly_repayment_pence.as_pence(), s[0]);
            }

            /// The offer's APR, given to one decimal place, is the flows' APR:
            /// within the 0.05 that rounding allows.
            #[test]
            fn the_apr_is_the_rate_of_the_cash_flows(
                principal in 100_000i64..=25_000_000, bps in 1u32..=5_000, term in 3u32..=60,
            ) {
                let o = offer(principal, bps, term);
                let exact = exact_apr(principal, &schedule(principal, bps, term));
                prop_assert!((o.apr - exact).abs() <= 0.05 + 1e-9, "{} vs {}", o.apr, exact);
            }
        }
    }
}
