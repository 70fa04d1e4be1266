//! A partner's agreements: the terms it is billed under, each from the
//! first day of a month (statements are monthly), kept as a history so a
//! change re-rates only the months on or after it. Hub seed, Versioning 7:
//! "Partner agreement price changes carry 60 days' written notice" — a
//! change that raises the price may not take effect sooner; one that does
//! not raise it may take effect from any month (a finalized statement
//! never changes, so it reaches only months not yet finalized).

use serde::{Deserialize, Serialize};
use time::{Date, Duration};

use super::{Period, Terms};

/// The written notice a price rise needs.
pub const NOTICE: Duration = Duration::days(60);

/// Terms agreed from the first day of `effective_from`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agreement {
    pub effective_from: Period,
    pub terms: Terms,
}

/// The terms `period` is rated under: the latest agreement in effect on
/// its first day; the integration fee when none is.
pub fn in_effect(agreements: &[Agreement], period: Period) -> Terms {
    agreements
        .iter()
        .filter(|a| a.effective_from <= period)
        .max_by_key(|a| a.effective_from)
        .map(|a| a.terms.clone())
        .unwrap_or_default()
}

/// A change refused for want of notice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooSoon {
    /// The first month a rise agreed today may take effect from.
    pub earliest: Period,
}

/// Whether `change` may be agreed on `today`, given the agreements made
/// before it: a rise (against the terms it replaces in its first month)
/// needs [`NOTICE`]; anything else may take effect from any month.
pub fn check(agreements: &[Agreement], change: &Agreement, today: Date) -> Result<(), TooSoon> {
    let replaced = in_effect(agreements, change.effective_from);
    if !change.terms.dearer_than(&replaced) {
        return Ok(());
    }
    let earliest = earliest_rise(today);
    if change.effective_from >= earliest {
        Ok(())
    } else {
        Err(TooSoon { earliest })
    }
}

/// The month a change agreed on `today` takes effect from when none is
/// named, so that it is the partner's terms from then on: the month under
/// way, or the latest agreement's month if that is later (replacing it),
/// or for a price rise the first month at least [`NOTICE`] away if that is
/// later still.
pub fn earliest(agreements: &[Agreement], terms: &Terms, today: Date) -> Period {
    let now = Period::of_date(today);
    let from = agreements
        .iter()
        .map(|a| a.effective_from)
        .max()
        .map_or(now, |latest| latest.max(now));
    if terms.dearer_than(&in_effect(agreements, from)) {
        earliest_rise(today).max(from)
    } else {
        from
    }
}

fn earliest_rise(today: Date) -> Period {
    let by = today.saturating_add(NOTICE);
    let month = Period::of_date(by);
    if by.day() == 1 { month } else { month.next() }
}

impl Terms {
    /// Whether the partner would pay more, or be paid less, under `self`
    /// than under `before` on some loan. Moving to the revenue share never
    /// costs the partner (it pays no fee on a shared loan); leaving it
    /// always does.
    pub fn dearer_than(&self, before: &Terms) -> bool {
        use crate::billing::economics::FeeTier;
        use crate::money::Money;
        let above_10m = |custom: &Option<i64>| FeeTier::Above10m.fee(custom.map(Money::pence));
        match (before, self) {
            (
                Terms::IntegrationFee {
                    custom_fee_pence: was,
                },
                Terms::IntegrationFee {
                    custom_fee_pence: now,
                },
            ) => above_10m(now) > above_10m(was),
            (
                Terms::RevenueShare {
                    strategic_share_bps: was,
                },
                Terms::RevenueShare {
                    strategic_share_bps: now,
                },
            ) => now < was,
            (Terms::IntegrationFee { .. }, Terms::RevenueShare { .. }) => false,
            (Terms::RevenueShare { .. }, Terms::IntegrationFee { .. }) => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn month(raw: &str) -> Period {
        Period::parse(raw).unwrap()
    }

    fn fee(pence: Option<i64>) -> Terms {
        Terms::IntegrationFee {
            custom_fee_pence: pence,
        }
    }

    fn share(bps: u32) -> Terms {
        Terms::RevenueShare {
            strategic_share_bps: bps,
        }
    }

    fn from(raw: &str, terms: Terms) -> Agreement {
        Agreement {
            effective_from: month(raw),
            terms,
        }
    }

    #[test]
    fn each_month_is_rated_under_the_agreement_in_effect_on_its_first_day() {
        let history = [from("2027-03", share(2_500)), from("2027-01", share(2_200))];
        assert_eq!(in_effect(&history, month("2026-12")), fee(None));
        assert_eq!(in_effect(&history, month("2027-01")), share(2_200));
        assert_eq!(in_effect(&history, month("2027-02")), share(2_200));
        assert_eq!(in_effect(&history, month("2027-03")), share(2_500));
        assert_eq!(in_effect(&history, month("2030-01")), share(2_500));
    }

    #[test]
    fn a_rise_needs_sixty_days_and_anything_else_none() {
        let today = date!(2026 - 11 - 29);
        let history = [from("2000-01", share(2_500))];
        // 60 days on is 28 January: February is the first month a rise
        // may take effect from.
        let rise = from("2027-01", share(2_200));
        assert_eq!(
            check(&history, &rise, today),
            Err(TooSoon {
                earliest: month("2027-02")
            })
        );
        assert_eq!(
            check(&history, &from("2027-02", share(2_200)), today),
            Ok(())
        );
        // A better share, or the same, may start now or even in a past
        // month; leaving the share is a rise.
        assert_eq!(
            check(&history, &from("2026-10", share(3_000)), today),
            Ok(())
        );
        assert_eq!(
            check(&history, &from("2026-12", share(2_500)), today),
            Ok(())
        );
        assert!(check(&history, &from("2026-12", fee(None)), today).is_err());
        // From the fee: the share is a cut, a dearer custom rate a rise.
        assert_eq!(check(&[], &from("2026-11", share(2_200)), today), Ok(()));
        assert_eq!(
            check(&[], &from("2026-11", fee(Some(2_000))), today),
            Ok(())
        );
        assert!(check(&[], &from("2026-11", fee(Some(2_600))), today).is_err());
        assert_eq!(
            check(&[], &from("2026-11", fee(Some(2_400))), today),
            Ok(())
        );
    }

    #[test]
    fn a_change_is_weighed_against_what_it_replaces_in_its_first_month() {
        let today = date!(2026 - 11 - 29);
        // A rise noticed for March; withdrawing it is a cut, raising it
        // further within the notice is not allowed.
        let history = [from("2027-03", fee(Some(3_000)))];
        assert_eq!(check(&history, &from("2027-03", fee(None)), today), Ok(()));
        assert!(check(&history, &from("2027-01", fee(Some(3_000))), today).is_err());
        assert_eq!(
            check(&history, &from("2027-03", fee(Some(2_900))), today),
            Ok(())
        );
    }

    #[test]
    fn unnamed_a_change_takes_over_from_the_latest_agreement() {
        let today = date!(2026 - 11 - 29);
        // The share is agreed from December: the fee, unnamed, is a rise
        // against it and waits for February; a better share replaces
        // December's; one agreed long ago is replaced from now.
        let scheduled = [from("2026-12", share(2_200))];
        assert_eq!(earliest(&scheduled, &fee(None), today), month("2027-02"));
        assert_eq!(earliest(&scheduled, &share(3_000), today), month("2026-12"));
        let old = [from("2000-01", share(2_200))];
        assert_eq!(earliest(&old, &share(3_000), today), month("2026-11"));
        assert_eq!(earliest(&old, &fee(None), today), month("2027-02"));
    }

    #[test]
    fn unnamed_the_effective_month_is_the_earliest_allowed() {
        let on_the_first = date!(2026 - 12 - 02);
        // 2 December + 60 days is 31 January: February.
        assert_eq!(
            earliest(&[], &fee(Some(2_500)), on_the_first),
            month("2027-02")
        );
        assert_eq!(earliest(&[], &share(2_200), on_the_first), month("2026-12"));
        // 60 days from 2 January 2027 is 3 March: April.
        assert_eq!(
            earliest(&[], &fee(Some(2_500)), date!(2027 - 01 - 02)),
            month("2027-04")
        );
        // 60 days from 30 January 2027 is 31 March: April.
        assert_eq!(
            earliest(&[], &fee(Some(2_500)), date!(2027 - 01 - 30)),
            month("2027-04")
        );
        // 60 days from 1 February 2027 is 2 April: May. From 31 January,
        // 1 April: April itself.
        assert_eq!(
            earliest(&[], &fee(Some(2_500)), date!(2027 - 02 - 01)),
            month("2027-05")
        );
        assert_eq!(
            earliest(&[], &fee(Some(2_500)), date!(2027 - 01 - 31)),
            month("2027-04")
        );
    }
}
