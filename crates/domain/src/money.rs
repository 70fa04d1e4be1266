//! Money: whole pence of GBP, with checked arithmetic only.
//!
//! `Money` is not an integer. It has no `From<i64>`, no `Add` or `Mul`
//! operators and no way into an `i64` expression except `pence()`, so a count,
//! a rate or an id cannot be added to an amount by accident, and an overflow
//! is a `None` the caller must handle, never a wrap or a panic. In JSON it is
//! the bare integer the seeds show (`"amount_pence": 2500000`).

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Money(i64);

/// How a division that does not come out even is settled, to the penny.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Toward negative infinity: never more than the exact figure.
    Down,
    /// To the nearest penny, halves away from zero (the usual commercial rule).
    HalfUp,
    /// Toward positive infinity: never less than the exact figure.
    Up,
}

impl Money {
    pub const ZERO: Money = Money(0);

    pub const fn pence(pence: i64) -> Money {
        Money(pence)
    }

    /// Whole pounds, as the commercial tables quote them (`45.00 GBP`).
    pub fn pounds(pounds: i64) -> Option<Money> {
        pounds.checked_mul(100).map(Money)
    }

    pub const fn as_pence(self) -> i64 {
        self.0
    }

    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    pub const fn is_negative(self) -> bool {
        self.0 < 0
    }

    pub fn checked_add(self, other: Money) -> Option<Money> {
        self.0.checked_add(other.0).map(Money)
    }

    pub fn checked_sub(self, other: Money) -> Option<Money> {
        self.0.checked_sub(other.0).map(Money)
    }

    pub fn checked_neg(self) -> Option<Money> {
        self.0.checked_neg().map(Money)
    }

    /// `count` of this amount (instalments, originations).
    pub fn checked_times(self, count: i64) -> Option<Money> {
        self.0.checked_mul(count).map(Money)
    }

    /// This amount × `numerator` / `denominator`, rounded as asked: shares,
    /// rates in basis points (`ratio(1800, 10_000, …)` is 18 %), pro-rating.
    /// Computed in 128 bits, so only a result outside `i64` fails; a zero
    /// denominator fails too.
    pub fn ratio(self, numerator: i64, denominator: i64, rounding: Rounding) -> Option<Money> {
        if denominator == 0 {
            return None;
        }
        let (mut n, mut d) = (
            i128::from(self.0) * i128::from(numerator),
            i128::from(denominator),
        );
        if d < 0 {
            (n, d) = (-n, -d);
        }
        let floor = n.div_euclid(d);
        let remainder = n.rem_euclid(d);
        let result = match rounding {
            Rounding::Down => floor,
            Rounding::Up if remainder > 0 => floor + 1,
            Rounding::Up => floor,
            // Halves away from zero: compare twice the remainder with d; for a
            // negative exact value the half goes down (away from zero).
            Rounding::HalfUp if 2 * remainder > d || (2 * remainder == d && n >= 0) => floor + 1,
            Rounding::HalfUp => floor,
        };
        i64::try_from(result).ok().map(Money)
    }

    /// The total of `amounts`, or `None` on overflow.
    pub fn sum<I: IntoIterator<Item = Money>>(amounts: I) -> Option<Money> {
        amounts
            .into_iter()
            .try_fold(Money::ZERO, |total, m| total.checked_add(m))
    }
}

/// `£1,234.56`, `-£0.05`: for statements, pages and messages, never for JSON.
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let pence = self.0.unsigned_abs();
        let pounds = (pence / 100).to_string();
        let mut grouped = String::with_capacity(pounds.len() + pounds.len() / 3);
        for (i, digit) in pounds.chars().enumerate() {
            if i > 0 && (pounds.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(digit);
        }
        write!(f, "{sign}£{grouped}.{:02}", pence % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn overflow_is_none_not_a_wrap() {
        assert_eq!(Money::pence(i64::MAX).checked_add(Money::pence(1)), None);
        assert_eq!(Money::pence(i64::MIN).checked_sub(Money::pence(1)), None);
        assert_eq!(Money::pence(i64::MIN).checked_neg(), None);
        assert_eq!(Money::pence(i64::MAX / 2 + 1).checked_times(2), None);
        assert_eq!(Money::pounds(i64::MAX / 100 + 1), None);
        assert_eq!(Money::sum([Money::pence(i64::MAX), Money::pence(1)]), None);
    }

    #[test]
    fn ratios_round_as_asked() {
        let m = Money::pence(1_005);
        // 1005 × 1/2 = 502.5
        assert_eq!(m.ratio(1, 2, Rounding::Down), Some(Money::pence(502)));
        assert_eq!(m.ratio(1, 2, Rounding::HalfUp), Some(Money::pence(503)));
        assert_eq!(m.ratio(1, 2, Rounding::Up), Some(Money::pence(503)));
        // -502.5: down is -503, half away from zero is -503, up is -502.
        let n = Money::pence(-1_005);
        assert_eq!(n.ratio(1, 2, Rounding::Down), Some(Money::pence(-503)));
        assert_eq!(n.ratio(1, 2, Rounding::HalfUp), Some(Money::pence(-503)));
        assert_eq!(n.ratio(1, 2, Rounding::Up), Some(Money::pence(-502)));
        // 18 % of £1,000 in basis points; a negative denominator is normalised.
        let k = Money::pounds(1_000).unwrap_or_default();
        assert_eq!(
            k.ratio(1_800, 10_000, Rounding::HalfUp),
            Some(Money::pence(18_000))
        );
        assert_eq!(
            k.ratio(-1_800, -10_000, Rounding::HalfUp),
            Some(Money::pence(18_000))
        );
        assert_eq!(k.ratio(1, 0, Rounding::Down), None);
        // The 128-bit intermediate does not overflow where the result fits.
        let big = Money::pence(i64::MAX);
        assert_eq!(big.ratio(3, 3, Rounding::Down), Some(big));
        assert_eq!(big.ratio(2, 1, Rounding::Down), None);
    }

    #[test]
    fn displays_as_pounds_and_pence() {
        assert_eq!(Money::pence(123_456).to_string(), "£1,234.56");
        assert_eq!(Money::pence(-5).to_string(), "-£0.05");
        assert_eq!(Money::ZERO.to_string(), "£0.00");
        assert_eq!(Money::pence(10_000_000_000).to_string(), "£100,000,000.00");
        assert_eq!(
            Money::pence(i64::MIN).to_string(),
            "-£92,233,720,368,547,758.08"
        );
    }

    #[test]
    fn json_is_the_bare_integer() {
        assert_eq!(
            serde_json::to_string(&Money::pence(2_500_000))
                .ok()
                .as_deref(),
            Some("2500000")
        );
        let back: Result<Money, _> = serde_json::from_str("116473");
        assert_eq!(back.ok(), Some(Money::pence(116_473)));
        // Decimals are not money: the seeds reject them.
        assert!(serde_json::from_str::<Money>("10.5").is_err());
    }

    proptest! {
        #[test]
        fn add_and_sub_agree_with_wide_integers(a in any::<i64>(), b in any::<i64>()) {
            let wide = i128::from(a) + i128::from(b);
            let sum = Money::pence(a).checked_add(Money::pence(b));
            prop_assert_eq!(sum.map(Money::as_pence).map(i128::from), i64::try_from(wide).ok().map(i128::from));
            if let Some(s) = sum {
                prop_assert_eq!(s.checked_sub(Money::pence(b)), Some(Money::pence(a)));
            }
        }

        #[test]
        fn a_ratio_is_within_a_penny_of_exact(p in -1_000_000_000_000i64..1_000_000_000_000, n in 0i64..100_000, d in 1i64..100_000) {
            let exact = i128::from(p) * i128::from(n);
            let d128 = i128::from(d);
            for rounding in [Rounding::Down, Rounding::HalfUp, Rounding::Up] {
                let r = Money::pence(p).ratio(n, d, rounding);
                prop_assert!(r.is_some());
                let r = i128::from(r.map_or(0, Money::as_pence));
                // r × d is within one d of the exact product.
                prop_assert!((r * d128 - exact).abs() < d128);
                match rounding {
                    Rounding::Down => prop_assert!(r * d128 <= exact),
                    Rounding::Up => prop_assert!(r * d128 >= exact),
                    Rounding::HalfUp => prop_assert!(2 * (r * d128 - exact).abs() <= d128),
                }
            }
        }

        #[test]
        fn shares_that_sum_to_the_whole_never_exceed_it(total in 0i64..1_000_000_000, bps in 0i64..=10_000) {
            // A share and its complement, one rounded down and one up, add back exactly.
            let m = Money::pence(total);
            let share = m.ratio(bps, 10_000, Rounding::Down);
            let rest = m.ratio(10_000 - bps, 10_000, Rounding::Up);
            prop_assert_eq!(share.zip(rest).and_then(|(a, b)| a.checked_add(b)), Some(m));
        }
    }
}
