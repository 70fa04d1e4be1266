//! Public quotes, computed from the pricing configuration in integer pence.
//!
//! A Business Loan of `P` over `T` days repays equal shares of the principal
//! on each instalment date (the final share absorbs the rounding), plus
//! simple daily interest on the principal outstanding since the previous
//! date, rounded half up per instalment; the establishment fee is due with
//! the first instalment. Instalment dates fall every period (7 or 14 days,
//! or the same day of each following month) strictly before the last day of
//! the term, which is always the final date; a final stub shorter than half
//! a period is merged into it. If interest and fees would exceed the cost
//! cap, interest is waived from the last instalment backwards (then the fee)
//! until they equal it. The APR is solved from the dated cash flows.

use serde::Serialize;
use time::{Date, Duration, Month};

use crate::public::pricing::{Bps, BusinessLoan, Frequency, PricingConfig, bps_percent};

/// Why an input cannot be quoted: the field, a stable reason and the bound
/// it broke, in the field's own unit (GBP for amounts, days for terms).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuoteIssue {
    pub field: &'static str,
    pub reason: &'static str,
    pub bound: Option<String>,
}

impl QuoteIssue {
    fn new(field: &'static str, reason: &'static str) -> Self {
        Self {
            field,
            reason,
            bound: None,
        }
    }

    fn bound(field: &'static str, reason: &'static str, bound: String) -> Self {
        Self {
            field,
            reason,
            bound: Some(bound),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Instalment {
    pub number: u32,
    pub due_date: String,
    pub days_from_start: u32,
    pub principal_pence: i64,
    pub interest_pence: i64,
    pub fee_pence: i64,
    pub amount_pence: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CostCap {
    pub cap_percent: u32,
    pub cap_pence: i64,
    /// Whether the cap bound this quote.
    pub applied: bool,
    /// What the cap took off (interest first, then fees).
    pub waived_pence: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Quote {
    /// Always `quote`.
    pub object: &'static str,
    pub product: &'static str,
    pub pricing_version: String,
    pub currency: &'static str,
    pub amount_pence: i64,
    pub term_days: u32,
    pub frequency: Frequency,
    pub start_date: String,
    pub daily_interest_rate_percent: String,
    pub fees_pence: i64,
    pub interest_pence: i64,
    pub total_cost_pence: i64,
    pub total_repayable_pence: i64,
    pub cost_cap: CostCap,
    /// Annual percentage rate from the cash flows, percent to one decimal.
    pub apr_percent: f64,
    pub schedule: Vec<Instalment>,
}

/// A GBP amount as sent in a query ("250", "250.5", "250.50") in pence;
/// no sign, no exponent, at most two decimals.
pub fn parse_gbp(s: &str) -> Result<i64, &'static str> {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (s.contains('.') && !digits(frac)) {
        return Err("invalid_amount");
    }
    if frac.len() > 2 {
        return Err("too_many_decimals");
    }
    if whole.len() > 12 {
        return Err("max_value");
    }
    let whole: i64 = whole.parse().map_err(|_| "invalid_amount")?;
    let frac: i64 = match frac.len() {
        0 => 0,
        1 => frac.parse::<i64>().map_err(|_| "invalid_amount")? * 10,
        _ => frac.parse().map_err(|_| "invalid_amount")?,
    };
    Ok(whole * 100 + frac)
}

/// Pence as a GBP figure for messages and bounds: 5000 → "50", 5050 → "50.50".
pub fn gbp(pence: i64) -> String {
    if pence % 100 == 0 {
        (pence / 100).to_string()
    } else {
        format!("{}.{:02}", pence / 100, pence % 100)
    }
}

/// Reads a Business Loan quote's inputs as given (`amount` in GBP, `term`
/// in days, `frequency` defaulting to the product's); every problem is
/// reported at once.
pub fn read_business_loan(
    loan: &BusinessLoan,
    amount: Option<&str>,
    term: Option<&str>,
    frequency: Option<&str>,
) -> Result<(i64, i64, Frequency), Vec<QuoteIssue>> {
    let mut issues = Vec::new();
    let mut refuse = |field, reason| issues.push(QuoteIssue::new(field, reason));
    let amount = match amount.map(str::trim) {
        None | Some("") => Err(("amount", "required")),
        Some(a) => parse_gbp(a).map_err(|reason| ("amount", reason)),
    }
    .map_err(|(field, reason)| refuse(field, reason))
    .ok();
    let term = match term.map(str::trim) {
        None | Some("") => Err("required"),
        Some(t) => match t.parse::<i64>() {
            Ok(days) if t.bytes().all(|b| b.is_ascii_digit()) => Ok(days),
            _ => Err("invalid_integer"),
        },
    }
    .map_err(|reason| refuse("term", reason))
    .ok();
    let frequency = match frequency.map(str::trim) {
        None | Some("") => Ok(loan.default_frequency),
        Some(f) => Frequency::parse(f).ok_or("invalid"),
    }
    .map_err(|reason| refuse("frequency", reason))
    .ok();
    // Bounds are checked for whatever parsed, so one answer names every
    // problem; placeholders stand in (and are not reported) for the rest.
    issues.extend(check_business_loan(
        loan,
        amount.unwrap_or(loan.principal_min_pence),
        term.unwrap_or(i64::from(loan.term_min_days)),
        frequency.unwrap_or(loan.default_frequency),
    ));
    match (amount, term, frequency) {
        (Some(a), Some(t), Some(f)) if issues.is_empty() => Ok((a, t, f)),
        _ => Err(issues),
    }
}

/// Checks the Business Loan bounds; every broken one is reported.
pub fn check_business_loan(
    loan: &BusinessLoan,
    amount_pence: i64,
    term_days: i64,
    frequency: Frequency,
) -> Vec<QuoteIssue> {
    let mut issues = Vec::new();
    if amount_pence < loan.principal_min_pence {
        issues.push(QuoteIssue::bound(
            "amount",
            "min_value",
            gbp(loan.principal_min_pence),
        ));
    } else if amount_pence > loan.principal_max_pence {
        issues.push(QuoteIssue::bound(
            "amount",
            "max_value",
            gbp(loan.principal_max_pence),
        ));
    }
    if term_days < i64::from(loan.term_min_days) {
        issues.push(QuoteIssue::bound(
            "term",
            "min_value",
            loan.term_min_days.to_string(),
        ));
    } else if term_days > i64::from(loan.term_max_days) {
        issues.push(QuoteIssue::bound(
            "term",
            "max_value",
            loan.term_max_days.to_string(),
        ));
    }
    if !loan.frequencies.contains(&frequency) {
        issues.push(QuoteIssue::new("frequency", "not_offered"));
    }
    issues
}

/// A Business Loan quote starting on `start`.
pub fn business_loan(
    config: &PricingConfig,
    amount_pence: i64,
    term_days: i64,
    frequency: Frequency,
    start: Date,
) -> Result<Quote, Vec<QuoteIssue>> {
    let loan = &config.business_loan;
    let issues = check_business_loan(loan, amount_pence, term_days, frequency);
    if !issues.is_empty() {
        return Err(issues);
    }
    let term_days =
        u32::try_from(term_days).map_err(|_| vec![QuoteIssue::new("term", "invalid")])?;
    Ok(compute(
        config,
        Terms {
            product: "business_loan",
            principal: amount_pence,
            term_days,
            frequency,
            daily_bps: loan.daily_interest_bps,
            fee_pence: loan.establishment_fee_pence,
            cap_percent: loan.total_cost_cap_percent,
        },
        start,
    ))
}

/// Flex's representative example: its drawing repaid over its term at
/// Flex's rate, under the Business Loan's cost cap, without a fee.
pub fn flex_example(config: &PricingConfig, start: Date) -> Quote {
    let example = &config.flex.representative;
    compute(
        config,
        Terms {
            product: "flex",
            principal: example.drawn_pence,
            term_days: example.term_days,
            frequency: example.frequency,
            daily_bps: config.flex.daily_interest_bps,
            fee_pence: 0,
            cap_percent: config.business_loan.total_cost_cap_percent,
        },
        start,
    )
}

struct Terms {
    product: &'static str,
    principal: i64,
    term_days: u32,
    frequency: Frequency,
    daily_bps: Bps,
    fee_pence: i64,
    cap_percent: u32,
}

fn add_months(start: Date, months: u32) -> Date {
    let index = start.month() as u32 - 1 + months;
    let year = start.year() + (index / 12) as i32;
    let month = Month::try_from((index % 12 + 1) as u8).unwrap_or(Month::January);
    let last = month.length(year);
    Date::from_calendar_date(year, month, start.day().min(last)).unwrap_or(start)
}

/// Days from the start of each instalment date, the last being the term.
pub fn instalment_days(start: Date, term_days: u32, frequency: Frequency) -> Vec<u32> {
    let boundary = |k: u32| -> u32 {
        match frequency {
            Frequency::Weekly => 7 * k,
            Frequency::Fortnightly => 14 * k,
            Frequency::Monthly => (add_months(start, k) - start).whole_days().max(0) as u32,
        }
    };
    let half_period = match frequency {
        Frequency::Weekly => 4,
        Frequency::Fortnightly => 7,
        Frequency::Monthly => 14,
    };
    let mut days = Vec::new();
    let mut k = 1;
    while boundary(k) < term_days {
        days.push(boundary(k));
        k += 1;
    }
    if let Some(&last) = days.last()
        && term_days - last < half_period
    {
        days.pop();
    }
    days.push(term_days);
    days
}

/// Half-up rounding of `n / d` for non-negative values.
fn div_round(n: i128, d: i128) -> i64 {
    ((n + d / 2) / d) as i64
}

// One pass over the instalment schedule that the pricing document describes
// step by step; kept in one function so it can be read against that text.
fn compute(config: &PricingConfig, t: Terms, start: Date) -> Quote {
    let days = instalment_days(start, t.term_days, t.frequency);
    let n = days.len() as i64;
    let share = t.principal / n;
    let mut outstanding = t.principal;
    let mut previous = 0;
    let mut schedule: Vec<Instalment> = days
        .iter()
        .enumerate()
        .map(|(i, &day)| {
            let number = i as u32 + 1;
            let principal = if number as i64 == n {
                outstanding
            } else {
                share
            };
            let interest = div_round(
                i128::from(outstanding) * i128::from(t.daily_bps) * i128::from(day - previous),
                10_000,
            );
            outstanding -= principal;
            previous = day;
            let fee = if number == 1 { t.fee_pence } else { 0 };
            Instalment {
                number,
                due_date: (start + Duration::days(i64::from(day))).to_string(),
                days_from_start: day,
                principal_pence: principal,
                interest_pence: interest,
                fee_pence: fee,
                amount_pence: principal + interest + fee,
            }
        })
        .collect();

    let cap_pence = t.principal * i64::from(t.cap_percent) / 100;
    let cost = |s: &[Instalment]| {
        s.iter()
            .map(|i| i.interest_pence + i.fee_pence)
            .sum::<i64>()
    };
    let mut excess = (cost(&schedule) - cap_pence).max(0);
    let waived = excess;
    for item in schedule.iter_mut().rev() {
        let cut = excess.min(item.interest_pence);
        item.interest_pence -= cut;
        excess -= cut;
    }
    for item in schedule.iter_mut() {
        let cut = excess.min(item.fee_pence);
        item.fee_pence -= cut;
        excess -= cut;
    }
    for item in &mut schedule {
        item.amount_pence = item.principal_pence + item.interest_pence + item.fee_pence;
    }

    let interest: i64 = schedule.iter().map(|i| i.interest_pence).sum();
    let fees: i64 = schedule.iter().map(|i| i.fee_pence).sum();
    let flows: Vec<(u32, i64)> = schedule
        .iter()
        .map(|i| (i.days_from_start, i.amount_pence))
        .collect();
    Quote {
        object: "quote",
        product: t.product,
        pricing_version: config.version.clone(),
        currency: "GBP",
        amount_pence: t.principal,
        term_days: t.term_days,
        frequency: t.frequency,
        start_date: start.to_string(),
        daily_interest_rate_percent: bps_percent(t.daily_bps),
        fees_pence: fees,
        interest_pence: interest,
        total_cost_pence: interest + fees,
        total_repayable_pence: t.principal + interest + fees,
        cost_cap: CostCap {
            cap_percent: t.cap_percent,
            cap_pence,
            applied: waived > 0,
            waived_pence: waived,
        },
        apr_percent: apr_percent(t.principal, &flows),
        schedule,
    }
}

/// `base^n` by repeated squaring: the same basic multiplications, in the
/// same order, on every machine.
fn pow(base: f64, mut n: u32) -> f64 {
    let (mut result, mut square) = (1.0, base);
    while n > 0 {
        if n & 1 == 1 {
            result *= square;
        }
        square *= square;
        n >>= 1;
    }
    result
}

/// The APR of an advance repaid by `(day, amount)` flows: the daily rate `r`
/// at which the flows' present value equals the advance, annualised as
/// `(1 + r)^365 − 1`, in percent to one decimal. Bisection, with only basic
/// float operations, so every machine gets the same figure.
pub fn apr_percent(principal: i64, flows: &[(u32, i64)]) -> f64 {
    let present_value = |r: f64| -> f64 {
        flows
            .iter()
            .map(|&(day, amount)| amount as f64 / pow(1.0 + r, day))
            .sum()
    };
    let target = principal as f64;
    if present_value(0.0) <= target {
        return 0.0;
    }
    let daily = newton(flows, target).unwrap_or_else(|| bisect(&present_value, target));
    let annual = pow(1.0 + daily, 365) - 1.0;
    (annual * 1000.0).round() / 10.0
}

/// Newton's method on the present value from a small positive rate; `None`
/// if it does not settle on a rate in (0, 1), for bisection to take over.
fn newton(flows: &[(u32, i64)], target: f64) -> Option<f64> {
    let mut r = 0.001_f64;
    for _ in 0..50 {
        let (mut value, mut slope) = (-target, 0.0);
        for &(day, amount) in flows {
            let discount = 1.0 / pow(1.0 + r, day);
            value += amount as f64 * discount;
            slope -= f64::from(day) * amount as f64 * discount / (1.0 + r);
        }
        if slope == 0.0 || !slope.is_finite() {
            return None;
        }
        let next = r - value / slope;
        if !(next > 0.0 && next < 1.0) {
            return None;
        }
        if (next - r).abs() <= 1e-13 * next {
            return Some(next);
        }
        r = next;
    }
    None
}

fn bisect(present_value: &dyn Fn(f64) -> f64, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 0.5_f64);
    // 64 halvings of [0, 0.5] leave an interval far below f64's resolution.
    for _ in 0..64 {
        let mid = (lo + hi) / 2.0;
        if present_value(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    fn config() -> PricingConfig {
        PricingConfig::parse(include_str!("../../../hub/data/pricing.json")).unwrap()
    }

    #[test]
    fn gbp_amounts_parse_exactly() {
        assert_eq!(parse_gbp("250"), Ok(25_000));
        assert_eq!(parse_gbp("250.5"), Ok(25_050));
        assert_eq!(parse_gbp("250.05"), Ok(25_005));
        assert_eq!(parse_gbp("0.10"), Ok(10));
        for bad in ["", "-5", "1e3", "2.", ".5", "12,5", " 5", "abc"] {
            assert_eq!(parse_gbp(bad), Err("invalid_amount"), "{bad:?}");
        }
        assert_eq!(parse_gbp("1.005"), Err("too_many_decimals"));
    }

    #[test]
    fn quote_inputs_report_every_problem_at_once() {
        let loan = &config().business_loan;
        let problems = |a, t, f| {
            read_business_loan(loan, a, t, f)
                .err()
                .unwrap_or_default()
                .into_iter()
                .map(|i| (i.field, i.reason))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            problems(None, Some("3x"), Some("hourly")),
            [
                ("amount", "required"),
                ("term", "invalid_integer"),
                ("frequency", "invalid")
            ]
        );
        let min_term = loan.term_min_days.to_string();
        let read = read_business_loan(loan, Some(" 250 "), Some(&min_term), None);
        assert_eq!(
            read,
            Ok((
                25_000,
                i64::from(loan.term_min_days),
                loan.default_frequency
            ))
        );
    }

    #[test]
    fn a_weekly_loan_by_hand() {
        // £100 over 14 days weekly: two instalments of £50 principal.
        // Interest: 10000 × 0.25 % × 7 = 175p, then 5000 × 0.25 % × 7 = 87.5 → 88p.
        let q = business_loan(
            &config(),
            10_000,
            14,
            Frequency::Weekly,
            date!(2026 - 11 - 22),
        )
        .unwrap();
        let amounts: Vec<(i64, i64, i64)> = q
            .schedule
            .iter()
            .map(|i| (i.principal_pence, i.interest_pence, i.fee_pence))
            .collect();
        assert_eq!(amounts, [(5_000, 175, 500), (5_000, 88, 0)]);
        assert_eq!(q.schedule[0].due_date, "2026-11-29");
        assert_eq!(q.schedule[1].due_date, "2026-12-06");
        assert_eq!(q.interest_pence, 263);
        assert_eq!(q.fees_pence, 500);
        assert_eq!(q.total_repayable_pence, 10_763);
        assert!(!q.cost_cap.applied);
        // Cross-check the APR: PV at the solved rate equals the advance.
        assert!(q.apr_percent > 1_000.0, "{}", q.apr_percent);
    }

    #[test]
    fn the_final_instalment_absorbs_rounding() {
        let q = business_loan(
            &config(),
            10_000,
            21,
            Frequency::Weekly,
            date!(2026 - 1 - 1),
        )
        .unwrap();
        let principal: Vec<i64> = q.schedule.iter().map(|i| i.principal_pence).collect();
        assert_eq!(principal, [3_333, 3_333, 3_334]);
        let sum: i64 = q.schedule.iter().map(|i| i.amount_pence).sum();
        assert_eq!(sum, q.total_repayable_pence);
    }

    #[test]
    fn instalment_dates_by_frequency() {
        let start = date!(2026 - 1 - 31);
        assert_eq!(instalment_days(start, 14, Frequency::Weekly), [7, 14]);
        assert_eq!(instalment_days(start, 15, Frequency::Weekly), [7, 15]);
        assert_eq!(instalment_days(start, 20, Frequency::Weekly), [7, 14, 20]);
        assert_eq!(
            instalment_days(start, 84, Frequency::Fortnightly),
            [14, 28, 42, 56, 70, 84]
        );
        // 31 Jan + 1 month = 28 Feb (28 days), + 2 = 31 Mar (59 days).
        assert_eq!(instalment_days(start, 84, Frequency::Monthly), [28, 59, 84]);
        assert_eq!(instalment_days(start, 30, Frequency::Monthly), [30]);
    }

    #[test]
    fn the_cost_cap_binds_when_the_rate_would_exceed_it() {
        let mut c = config();
        c.business_loan.daily_interest_bps = 300; // 3 % a day
        let q = business_loan(&c, 10_000, 84, Frequency::Weekly, date!(2026 - 1 - 1)).unwrap();
        assert!(q.cost_cap.applied);
        assert_eq!(
            q.total_cost_pence, 10_000,
            "capped at 100 % of the principal"
        );
        assert_eq!(q.total_repayable_pence, 20_000);
        assert!(q.cost_cap.waived_pence > 0);
        let sum: i64 = q.schedule.iter().map(|i| i.amount_pence).sum();
        assert_eq!(sum, 20_000);
    }

    #[test]
    fn every_broken_bound_is_named() {
        let c = config();
        let e = business_loan(&c, 4_999, 85, Frequency::Weekly, date!(2026 - 1 - 1)).unwrap_err();
        assert_eq!(
            e,
            [
                QuoteIssue::bound("amount", "min_value", "50".into()),
                QuoteIssue::bound("term", "max_value", "84".into()),
            ]
        );
        let e = business_loan(&c, 50_001, 13, Frequency::Weekly, date!(2026 - 1 - 1)).unwrap_err();
        assert_eq!(e[0], QuoteIssue::bound("amount", "max_value", "500".into()));
        assert_eq!(e[1], QuoteIssue::bound("term", "min_value", "14".into()));
    }

    #[test]
    fn apr_of_a_known_flow() {
        // 100 borrowed, 110 repaid after 365 days: 10 %.
        assert_eq!(apr_percent(10_000, &[(365, 11_000)]), 10.0);
        assert_eq!(apr_percent(10_000, &[(30, 10_000)]), 0.0);
    }

    #[test]
    fn newton_agrees_with_bisection() {
        let c = config();
        for (amount, term, frequency) in [
            (5_000, 14, Frequency::Weekly),
            (50_000, 84, Frequency::Monthly),
            (12_345, 45, Frequency::Fortnightly),
        ] {
            let q = business_loan(&c, amount, term, frequency, date!(2026 - 3 - 1)).unwrap();
            let flows: Vec<(u32, i64)> = q
                .schedule
                .iter()
                .map(|i| (i.days_from_start, i.amount_pence))
                .collect();
            let pv =
                |r: f64| -> f64 { flows.iter().map(|&(d, a)| a as f64 / pow(1.0 + r, d)).sum() };
            let fast = newton(&flows, amount as f64).unwrap();
            let slow = bisect(&pv, amount as f64);
            assert!(
                (fast - slow).abs() < 1e-12 * slow.max(1e-9),
                "{fast} vs {slow}"
            );
        }
    }

    #[test]
    fn flex_example_has_no_fee() {
        let q = flex_example(&config(), date!(2026 - 1 - 1));
        assert_eq!(q.product, "flex");
        assert_eq!(q.fees_pence, 0);
        assert_eq!(q.schedule.len(), 12);
    }

    proptest::proptest! {
        /// Any amount in pence written as GBP reads back as the same pence.
        #[test]
        fn gbp_figures_read_back_exactly(pence in 0i64..100_000_000_000_000) {
            proptest::prop_assert_eq!(parse_gbp(&gbp(pence)), Ok(pence));
        }

        /// Every quote within the product's bounds adds up: the schedule
        /// repays exactly the principal, the interest and the fees; each
        /// instalment is its parts; the total cost is within the cost cap;
        /// instalments fall due in order within the term.
        #[test]
        fn every_quote_adds_up(
            amount in 0i64..=1_000_000,
            term in 0i64..=2_000,
            frequency in proptest::sample::select(Frequency::ALL.to_vec()),
            start_offset in 0i64..400,
        ) {
            let config = config();
            let loan = &config.business_loan;
            let amount = loan.principal_min_pence
                + amount * (loan.principal_max_pence - loan.principal_min_pence) / 1_000_000;
            let term = i64::from(loan.term_min_days)
                + term * i64::from(loan.term_max_days - loan.term_min_days) / 2_000;
            let start = date!(2026 - 01 - 01) + time::Duration::days(start_offset);
            let Ok(q) = business_loan(&config, amount, term, frequency, start) else {
                // Only a frequency the product does not offer is refused.
                proptest::prop_assert!(!loan.frequencies.contains(&frequency));
                return Ok(());
            };
            let sum = |f: fn(&Instalment) -> i64| q.schedule.iter().map(f).sum::<i64>();
            proptest::prop_assert_eq!(sum(|i| i.principal_pence), amount);
            proptest::prop_assert_eq!(sum(|i| i.interest_pence), q.interest_pence);
            proptest::prop_assert_eq!(sum(|i| i.fee_pence), q.fees_pence);
            proptest::prop_assert_eq!(sum(|i| i.amount_pence), q.total_repayable_pence);
            proptest::prop_assert_eq!(q.total_repayable_pence, amount + q.total_cost_pence);
            proptest::prop_assert_eq!(q.total_cost_pence, q.interest_pence + q.fees_pence);
            proptest::prop_assert!(q.total_cost_pence <= q.cost_cap.cap_pence);
            let whole = |i: &Instalment| {
                i.amount_pence == i.principal_pence + i.interest_pence + i.fee_pence
                    && i.principal_pence >= 0
                    && i.interest_pence >= 0
            };
            proptest::prop_assert!(q.schedule.iter().all(whole));
            proptest::prop_assert!(q.schedule.windows(2).all(|w| w[0].days_from_start < w[1].days_from_start));
            proptest::prop_assert!(q.schedule.last().is_some_and(|i| i.days_from_start <= q.term_days));
            proptest::prop_assert!(q.apr_percent >= 0.0);
        }
    }
}
