//! The integration fee (hub seed, Commercial model; issue #17): what a
//! partner on the integration-fee model owes for each funded origination,
//! tiered on its trailing-30-day funded volume. Pure arithmetic on stored
//! facts (the originations), so a month closed again from the same facts
//! gives the same figures. docs/decisions.md records the choices the seed
//! leaves open (the boundaries, and its two windows).

use time::{Duration, OffsetDateTime};

use crate::ids::{AccountId, HubId};
use crate::money::Money;

/// The window funded volume is counted over.
pub const TRAILING: Duration = Duration::days(30);

/// A funded loan: the fact the fee is charged on. A top-up with a new
/// agreement is a new origination; a further advance under a committed
/// facility is not (it is no new account).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origination {
    pub account_id: AccountId,
    pub funded_at: OffsetDateTime,
    pub principal: Money,
}

/// The seed's tiers, by trailing-30-day funded volume, each upper bound
/// inclusive (500,000 GBP exactly is still the first tier).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FeeTier {
    /// Up to 500 k GBP: 45 GBP an origination.
    UpTo500k,
    /// Above 500 k, up to 2 m: 32 GBP.
    UpTo2m,
    /// Above 2 m, up to 10 m: 24 GBP.
    UpTo10m,
    /// Above 10 m: the partner's own rate ("custom").
    Above10m,
}

const POUND: i64 = 100;

impl FeeTier {
    pub fn for_volume(volume: Money) -> Self {
        let pence = volume.as_pence();
        if pence <= 500_000 * POUND {
            FeeTier::UpTo500k
        } else if pence <= 2_000_000 * POUND {
            FeeTier::UpTo2m
        } else if pence <= 10_000_000 * POUND {
            FeeTier::UpTo10m
        } else {
            FeeTier::Above10m
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FeeTier::UpTo500k => "up_to_500k",
            FeeTier::UpTo2m => "up_to_2m",
            FeeTier::UpTo10m => "up_to_10m",
            FeeTier::Above10m => "above_10m",
        }
    }

    /// The fee an origination, with `custom` the partner's rate above 10 m
    /// (the 10 m tier's rate until one is agreed).
    pub fn fee(self, custom: Option<Money>) -> Money {
        match self {
            FeeTier::UpTo500k => Money::pence(45 * POUND),
            FeeTier::UpTo2m => Money::pence(32 * POUND),
            FeeTier::UpTo10m => Money::pence(24 * POUND),
            FeeTier::Above10m => custom.unwrap_or(Money::pence(24 * POUND)),
        }
    }
}

/// Funded volume in the 30 days up to and including `at`.
pub fn trailing_volume(originations: &[Origination], at: OffsetDateTime) -> Option<Money> {
    Money::sum(
        originations
            .iter()
            .filter(|o| o.funded_at <= at && o.funded_at > at - TRAILING)
            .map(|o| o.principal),
    )
}

/// A month's fee: its tier, the rate, and one line per origination funded
/// in `[from, to)`, oldest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonthFees {
    pub tier: FeeTier,
    pub rate: Money,
    pub lines: Vec<(AccountId, Money)>,
    pub total: Money,
}

/// The fee for the originations funded in `[from, to)`. The month's tier is
/// the best one reached at any funding within it (by the trailing volume
/// at that moment), and it rates every origination of the month: a tier
/// crossed mid-month re-rates the month, and a tier, once reached, is kept
/// for the month even if older loans leave the window. `originations` may
/// hold any history; each is billed in its own month only, once. `None`
/// on arithmetic overflow.
pub fn month_fees(
    originations: &[Origination],
    from: OffsetDateTime,
    to: OffsetDateTime,
    custom: Option<Money>,
) -> Option<MonthFees> {
    // Every origination up to the month's end, once each, oldest first:
    // the trailing window then slides over them in one pass.
    let mut history: Vec<&Origination> = originations.iter().filter(|o| o.funded_at < to).collect();
    history.sort_by(|a, b| {
        (a.funded_at, a.account_id.as_str()).cmp(&(b.funded_at, b.account_id.as_str()))
    });
    let mut seen = std::collections::HashSet::new();
    history.retain(|o| seen.insert(o.account_id.as_str()));
    let mut tier = FeeTier::UpTo500k;
    let (mut lo, mut hi, mut window) = (0, 0, Money::ZERO);
    let mut month = Vec::new();
    for o in &history {
        if o.funded_at < from {
            continue;
        }
        // The window is (funded_at - 30 days, funded_at], ties included.
        while hi < history.len() && history[hi].funded_at <= o.funded_at {
            window = window.checked_add(history[hi].principal)?;
            hi += 1;
        }
        while history[lo].funded_at <= o.funded_at - TRAILING {
            window = window.checked_sub(history[lo].principal)?;
            lo += 1;
        }
        tier = tier.max(FeeTier::for_volume(window));
        month.push(*o);
    }
    let rate = tier.fee(custom);
    let lines: Vec<(AccountId, Money)> =
        month.iter().map(|o| (o.account_id.clone(), rate)).collect();
    let total = Money::sum(lines.iter().map(|(_, fee)| *fee))?;
    Some(MonthFees {
        tier,
        rate,
        lines,
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use time::macros::datetime;

    const NOV: OffsetDateTime = datetime!(2026-11-01 00:00 UTC);
    const DEC: OffsetDateTime = datetime!(2026-12-01 00:00 UTC);

    fn loan(n: u128, at: OffsetDateTime, pounds: i64) -> Origination {
        Origination {
            account_id: AccountId::generate(1, n),
            funded_at: at,
            principal: Money::pence(pounds * POUND),
        }
    }

    #[test]
    fn the_boundaries_belong_to_the_lower_tier() {
        let p = |pounds: i64| Money::pence(pounds * POUND);
        assert_eq!(FeeTier::for_volume(p(500_000)), FeeTier::UpTo500k);
        assert_eq!(
            FeeTier::for_volume(Money::pence(500_000 * POUND + 1)),
            FeeTier::UpTo2m
        );
        assert_eq!(FeeTier::for_volume(p(2_000_000)), FeeTier::UpTo2m);
        assert_eq!(FeeTier::for_volume(p(10_000_000)), FeeTier::UpTo10m);
        assert_eq!(FeeTier::for_volume(p(10_000_001)), FeeTier::Above10m);
        assert_eq!(FeeTier::Above10m.fee(None), p(24));
        assert_eq!(FeeTier::Above10m.fee(Some(p(18))), p(18));
    }

    #[test]
    fn crossing_500k_mid_month_re_rates_the_whole_month() {
        // Four loans of 150 k: the fourth takes the trailing volume to 600 k.
        let loans: Vec<Origination> = (0..4)
            .map(|n| loan(n, NOV + Duration::days(2 + 7 * n as i64), 150_000))
            .collect();
        let before = month_fees(&loans[..3], NOV, DEC, None).expect("fees");
        assert_eq!(
            (before.tier, before.rate),
            (FeeTier::UpTo500k, Money::pence(4_500))
        );
        assert_eq!(before.total, Money::pence(3 * 4_500));
        let after = month_fees(&loans, NOV, DEC, None).expect("fees");
        assert_eq!(
            (after.tier, after.rate),
            (FeeTier::UpTo2m, Money::pence(3_200))
        );
        assert_eq!(
            after.total,
            Money::pence(4 * 3_200),
            "all four at the month's tier"
        );
    }

    #[test]
    fn a_month_bills_only_its_own_originations_once_each() {
        let loans = vec![
            loan(1, NOV - Duration::days(3), 10_000),
            loan(2, NOV, 10_000),
            loan(2, NOV, 10_000),
            loan(3, DEC - Duration::seconds(1), 10_000),
            loan(4, DEC, 10_000),
        ];
        let fees = month_fees(&loans, NOV, DEC, None).expect("fees");
        let ids: Vec<_> = fees.lines.iter().map(|(id, _)| id.clone()).collect();
        assert_eq!(
            ids,
            vec![AccountId::generate(1, 2), AccountId::generate(1, 3)]
        );
    }

    proptest! {
        #[test]
        fn the_months_fee_is_the_tier_rate_times_its_originations_and_repeatable(
            fundings in proptest::collection::vec((0i64..60 * 24, 1i64..400_000), 0..60),
        ) {
            let start = NOV - Duration::days(30);
            let loans: Vec<Origination> = fundings
                .iter()
                .enumerate()
                .map(|(n, (hours, pounds))| loan(n as u128, start + Duration::hours(*hours), *pounds))
                .collect();
            let fees = month_fees(&loans, NOV, DEC, None).expect("fees");
            let in_month = loans.iter().filter(|o| o.funded_at >= NOV && o.funded_at < DEC).count();
            prop_assert_eq!(fees.lines.len(), in_month);
            prop_assert_eq!(fees.total.as_pence(), fees.rate.as_pence() * in_month as i64);
            prop_assert!(fees.lines.iter().all(|(_, f)| *f == fees.rate));
            // Closed again from the same facts, in any order: the same.
            let mut shuffled = loans.clone();
            shuffled.reverse();
            prop_assert_eq!(month_fees(&shuffled, NOV, DEC, None).expect("fees"), fees.clone());
            // The month's tier is never below the tier at its last funding.
            if let Some(last) = loans.iter().filter(|o| o.funded_at >= NOV && o.funded_at < DEC).map(|o| o.funded_at).max() {
                let at_last = FeeTier::for_volume(trailing_volume(&loans, last).expect("volume"));
                prop_assert!(fees.tier >= at_last);
            }
        }
    }
}
