//! The REST tier's decision engine (issues #15, #48). One engine over the
//! facts a hosted or white-label journey gathers — the register's entity,
//! the credit file, the open-banking summary, the directors' identity
//! checks and any marketplace signals: policy rules first, then the credit
//! model (`credit_model`), whose probability of default decides.
//!
//! Pure: every fact is an argument, and the facts are kept with the decision
//! so it can be explained later exactly as it was made.

use serde::{Deserialize, Serialize};

use crate::credit_model::{self, Score, Scorecard, Scored};
use crate::lending::kyc;
use crate::lending::register::RegisteredEntity;
use crate::loan::{self, Offer};
use crate::sandbox::decisioning::{Outcome, Reason, ReasonCode, annual_rate_bps};

/// The credit file of a company (a bureau in production; the synthetic one
/// is the sandbox's derived profile, so both tiers agree on a company).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreditFile {
    pub score: u32,
    pub limit_pence: i64,
}

impl CreditFile {
    /// The synthetic bureau: the sandbox's profile of the company.
    pub fn synthetic(company_number: &str) -> Self {
        let p = crate::sandbox::decisioning::profile(company_number);
        Self {
            score: p.credit_score,
            limit_pence: p.credit_limit_pence,
        }
    }
}

/// What the connected bank account shows, month by month averaged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Banking {
    /// Whole calendar months of transactions seen.
    pub months: u32,
    pub average_monthly_inflow_pence: i64,
    pub average_monthly_outflow_pence: i64,
    /// How much the monthly inflow varies: its standard deviation over its
    /// mean, in percent. `None` on facts kept before it was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inflow_volatility_pct: Option<u32>,
    /// Days the account ended overdrawn in the months seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_overdrawn: Option<u32>,
    /// Payments returned unpaid in the months seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned_payments: Option<u32>,
}

impl Banking {
    /// An account whose every month looks alike over `months`: the same
    /// takings, never overdrawn, nothing returned (the test accounts).
    pub const fn steady(months: u32, inflow_pence: i64, outflow_pence: i64) -> Self {
        Self {
            months,
            average_monthly_inflow_pence: inflow_pence,
            average_monthly_outflow_pence: outflow_pence,
            inflow_volatility_pct: Some(0),
            days_overdrawn: Some(0),
            returned_payments: Some(0),
        }
    }
}

/// What marketplace signals (issue #17) add: a fraud marker of high
/// confidence, and a price adjustment within [`MAX_SIGNAL_ADJUST_BPS`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signals {
    pub fraud: bool,
    pub rate_adjust_bps: i32,
}

pub const MAX_SIGNAL_ADJUST_BPS: i32 = 200;

/// Everything the engine weighs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    pub eligible: bool,
    pub amount_pence: i64,
    pub term_months: u32,
    pub credit: CreditFile,
    /// `None` when no account was connected.
    pub banking: Option<Banking>,
    /// The worst of the directors' checks; `None` if none was made.
    pub identity: Option<kyc::Status>,
    pub signals: Signals,
    /// Whole months since incorporation, when the register gives the date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub company_age_months: Option<u32>,
    /// The sector the register's SIC codes place the company in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sector: Option<String>,
}

impl Facts {
    pub fn new(
        company: &RegisteredEntity,
        amount_pence: i64,
        term_months: u32,
        credit: CreditFile,
        banking: Option<Banking>,
        identity: Option<kyc::Status>,
        signals: Signals,
    ) -> Self {
        Self {
            eligible: company.eligibility().is_ok(),
            amount_pence,
            term_months,
            credit,
            banking,
            identity,
            signals,
            company_age_months: None,
            sector: None,
        }
    }
}

impl Facts {
    /// With what the register says of the company's age (on `today`) and
    /// sector.
    pub fn with_register(mut self, company: &RegisteredEntity, today: time::Date) -> Self {
        self.company_age_months = company.age_months(today);
        self.sector = company.sector().map(str::to_owned);
        self
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub outcome: Outcome,
    /// Never empty.
    pub reasons: Vec<Reason>,
    /// When approved: for the amount and term asked, priced by the score.
    pub offer: Option<Offer>,
    /// The model's score, when the model decided (not a policy rule or an
    /// underwriter); `None` on decisions made before the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scored: Option<Scored>,
}

/// The seed's second catalogue of decision reason values, for partners who
/// read it: each code maps to one (docs/decisions.md).
pub fn reason_value(code: ReasonCode) -> &'static str {
    use ReasonCode::*;
    match code {
        CreditAdverse | ThinFile => "adverse_credit",
        AffordabilityLow | BankingDataInsufficient => "affordability",
        DirectorRisk => "identity_unverified",
        IneligibleEntity | AmountExceedsLimit | ManualReviewRequired => "out_of_appetite",
        // A fraud marker's decline also carries `manual_review_required`.
        CreditOk | AffordabilityOk | MarketplaceSignal => "none",
    }
}

/// The monthly free cash the bank account shows.
pub fn free_cash_pence(b: &Banking) -> i64 {
    b.average_monthly_inflow_pence
        .saturating_sub(b.average_monthly_outflow_pence)
}

/// Policy first, then the model. The rules that bound the model, in order:
/// an entity lendhub cannot lend to, a high-confidence fraud marker, an
/// amount over the bureau's limit. Then `model` scores the facts'
/// features; its probability of default sets the outcome through its
/// cut-offs and prices an approval, and the features that pushed it up
/// most give a referral's or a decline's reasons. An approval's are
/// `credit_ok` and `affordability_ok`, always in that order, as before the
/// model: partners read them as a fixed pair.
pub fn decide(f: &Facts, model: &Scorecard) -> Verdict {
    use ReasonCode::*;
    let with = |outcome, codes: &[ReasonCode]| Verdict {
        outcome,
        reasons: codes.iter().copied().map(Reason::from).collect(),
        offer: None,
        scored: None,
    };
    if !f.eligible {
        return with(Outcome::Declined, &[IneligibleEntity]);
    }
    if f.signals.fraud {
        // The seed's catalogue has no fraud code: lendhub's own names the
        // signal, and the policy code says a rule outside the file decided.
        return with(
            Outcome::Declined,
            &[MarketplaceSignal, ManualReviewRequired],
        );
    }
    if f.amount_pence > f.credit.limit_pence {
        return with(Outcome::Declined, &[AmountExceedsLimit]);
    }
    let scored = Scored::by(model, credit_model::features::of(f));
    let probability = scored.score.probability;
    let outcome = scored.cutoffs.outcome(probability);
    let (reasons, offer) = match outcome {
        Outcome::Approved => {
            let rate = signalled_rate_bps(model.price_bps(probability), f);
            let offer = loan::offer(f.amount_pence, rate, f.term_months);
            (with_signals(f, &[CreditOk, AffordabilityOk]), Some(offer))
        }
        Outcome::Referred => {
            let mut codes = adverse(&scored.score);
            codes.push(ManualReviewRequired);
            (codes.into_iter().map(Reason::from).collect(), None)
        }
        Outcome::Declined => (
            adverse(&scored.score)
                .into_iter()
                .map(Reason::from)
                .collect(),
            None,
        ),
    };
    Verdict {
        outcome,
        reasons,
        offer,
        scored: Some(scored),
    }
}

/// A weight below this (in log-odds) is too small to name as a reason.
const NAMED_WEIGHT: f64 = 0.05;

/// The reason codes of the features that pushed the probability up: each
/// code's weight is the sum of its features' (the cash-flow measures weigh
/// together as `affordability_low`), the heaviest first; the heaviest
/// feature's code alone if none pushed it up enough to name.
pub fn adverse(score: &Score) -> Vec<ReasonCode> {
    let mut by_code: Vec<(ReasonCode, f64)> = Vec::new();
    for c in score.contributions.iter().filter(|c| c.weight > 0.0) {
        match by_code.iter_mut().find(|(code, _)| *code == c.reason) {
            Some((_, sum)) => *sum += c.weight,
            None => by_code.push((c.reason, c.weight)),
        }
    }
    by_code.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut codes: Vec<ReasonCode> = by_code
        .iter()
        .filter(|(_, weight)| *weight > NAMED_WEIGHT)
        .map(|(code, _)| *code)
        .collect();
    if codes.is_empty()
        && let Some(top) = score
            .contributions
            .iter()
            .max_by(|a, b| a.weight.total_cmp(&b.weight))
    {
        codes.push(top.reason);
    }
    codes
}

/// `rate_bps` moved by the signals, within [`MAX_SIGNAL_ADJUST_BPS`].
fn signalled_rate_bps(rate_bps: u32, f: &Facts) -> u32 {
    let adjust = f
        .signals
        .rate_adjust_bps
        .clamp(-MAX_SIGNAL_ADJUST_BPS, MAX_SIGNAL_ADJUST_BPS);
    (i64::from(rate_bps) + i64::from(adjust)).max(0) as u32
}

/// An approval's reasons, with `marketplace_signal` when signals moved
/// its price.
fn with_signals(f: &Facts, codes: &[ReasonCode]) -> Vec<Reason> {
    let mut reasons: Vec<Reason> = codes.iter().copied().map(Reason::from).collect();
    if f.signals.rate_adjust_bps != 0 {
        reasons.push(ReasonCode::MarketplaceSignal.into());
    }
    reasons
}

/// An underwriter's approval of a referral: an offer for the amount and
/// term asked, priced by the bureau score (and any signals), as before the
/// model (a referral's probability is past every automatic price band),
/// with the policy reason saying a person decided. Affordability is the
/// underwriter's judgement here, not the rule's.
///
/// A high-confidence fraud marker that arrived while the referral waited
/// declines it whoever rules: the marker short-circuits, as it does in the
/// engine.
pub fn approve_referral(f: &Facts) -> Verdict {
    use ReasonCode::*;
    if f.signals.fraud {
        return decline_referral(MarketplaceSignal);
    }
    Verdict {
        outcome: Outcome::Approved,
        reasons: with_signals(f, &[ManualReviewRequired, CreditOk]),
        offer: Some(loan::offer(
            f.amount_pence,
            signalled_rate_bps(annual_rate_bps(f.credit.score), f),
            f.term_months,
        )),
        scored: None,
    }
}

/// The test environment's simulated underwriter (docs/guide/src/simulators.md):
/// approves a referral whose credit score is at least
/// [`SIMULATED_APPROVAL_SCORE`] and whose directors' checks needed no
/// review; declines the rest, for `director_risk` or `credit_adverse`.
pub fn simulated_review(f: &Facts) -> Verdict {
    if f.signals.fraud {
        return decline_referral(ReasonCode::MarketplaceSignal);
    }
    if f.identity == Some(kyc::Status::ReviewRequired) {
        return decline_referral(ReasonCode::DirectorRisk);
    }
    if f.credit.score < SIMULATED_APPROVAL_SCORE {
        return decline_referral(ReasonCode::CreditAdverse);
    }
    approve_referral(f)
}

pub const SIMULATED_APPROVAL_SCORE: u32 = 450;

/// An underwriter's decline of a referral, for the reason they give.
pub fn decline_referral(code: ReasonCode) -> Verdict {
    Verdict {
        outcome: Outcome::Declined,
        reasons: vec![code.into(), ReasonCode::ManualReviewRequired.into()],
        offer: None,
        scored: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lending::register;
    use proptest::prelude::*;

    fn facts(company: &str, amount: i64) -> Facts {
        Facts::new(
            &register::synthetic(company).unwrap(),
            amount,
            24,
            CreditFile::synthetic(company),
            Some(Banking {
                months: 12,
                average_monthly_inflow_pence: 5_000_000,
                average_monthly_outflow_pence: 3_000_000,
                ..Default::default()
            }),
            Some(kyc::Status::Verified),
            Signals::default(),
        )
    }

    fn model() -> &'static Scorecard {
        credit_model::champion().unwrap()
    }

    fn codes(v: &Verdict) -> Vec<ReasonCode> {
        v.reasons.iter().map(|r| r.code).collect()
    }

    #[test]
    fn the_sandbox_fixtures_decide_alike_where_the_rules_overlap() {
        let approved = decide(&facts("00000401", 1_000_000), model());
        assert_eq!(approved.outcome, Outcome::Approved);
        assert_eq!(
            codes(&approved),
            [ReasonCode::CreditOk, ReasonCode::AffordabilityOk]
        );
        let offer = approved.offer.unwrap();
        assert_eq!(offer.term_months, 24, "the term asked for");
        assert!(offer.is_indicative);
        assert_eq!(
            decide(&facts("00000402", 1_000_000), model()).outcome,
            Outcome::Referred
        );
        assert_eq!(
            codes(&decide(&facts("00000403", 1_000_000), model())),
            [ReasonCode::CreditAdverse]
        );
        assert_eq!(
            codes(&decide(&facts("00000405", 1_000_000), model())),
            [ReasonCode::IneligibleEntity]
        );
        assert_eq!(
            codes(&decide(&facts("00000406", 2_500_001), model())),
            [ReasonCode::AmountExceedsLimit]
        );
    }

    #[test]
    fn affordability_comes_from_the_bank_account() {
        let mut f = facts("00000401", 10_000_000);
        f.banking = Some(Banking {
            months: 12,
            average_monthly_inflow_pence: 1_000_000,
            average_monthly_outflow_pence: 900_000,
            ..Default::default()
        });
        let unaffordable = decide(&f, model());
        assert_eq!(unaffordable.outcome, Outcome::Declined);
        assert_eq!(codes(&unaffordable), [ReasonCode::AffordabilityLow]);
        // Two months of an account that could repay: too little to judge.
        let mut f = facts("00000401", 1_000_000);
        f.banking = Some(Banking::steady(2, 5_000_000, 3_000_000));
        assert_eq!(
            codes(&decide(&f, model())),
            [
                ReasonCode::BankingDataInsufficient,
                ReasonCode::ManualReviewRequired
            ]
        );
        f.banking = None;
        let unseen = decide(&f, model());
        assert_eq!(unseen.outcome, Outcome::Referred);
        assert_eq!(codes(&unseen)[0], ReasonCode::BankingDataInsufficient);
    }

    #[test]
    fn identity_and_signals_weigh_in() {
        let mut f = facts("00000401", 1_000_000);
        f.identity = Some(kyc::Status::ReviewRequired);
        assert_eq!(
            codes(&decide(&f, model())),
            [ReasonCode::DirectorRisk, ReasonCode::ManualReviewRequired]
        );
        let mut f = facts("00000401", 1_000_000);
        f.signals.fraud = true;
        assert_eq!(decide(&f, model()).outcome, Outcome::Declined);
        let base = decide(&facts("00000401", 1_000_000), model())
            .offer
            .unwrap();
        let mut f = facts("00000401", 1_000_000);
        f.signals.rate_adjust_bps = 10_000;
        let dearer = decide(&f, model()).offer.unwrap();
        assert_eq!(
            dearer.annual_rate_bps,
            base.annual_rate_bps + MAX_SIGNAL_ADJUST_BPS as u32,
            "within the documented bounds"
        );
    }

    #[test]
    fn every_code_has_a_value_in_the_second_catalogue() {
        assert_eq!(
            reason_value(ReasonCode::DirectorRisk),
            "identity_unverified"
        );
        assert_eq!(reason_value(ReasonCode::ThinFile), "adverse_credit");
    }

    proptest! {
        /// Whatever the facts, a verdict explains itself, and an offer is
        /// for exactly what was asked.
        #[test]
        fn verdicts_always_have_reasons(
            score in 300u32..900, limit in 100_000i64..300_000_000,
            amount in 100_000i64..=25_000_000, term in 3u32..=60,
            months in 0u32..24, inflow in 0i64..50_000_000, outflow in 0i64..50_000_000,
        ) {
            let f = Facts {
                eligible: true, amount_pence: amount, term_months: term,
                credit: CreditFile { score, limit_pence: limit },
                banking: Some(Banking { months, average_monthly_inflow_pence: inflow,
                                        average_monthly_outflow_pence: outflow,
                                        ..Default::default() }),
                identity: Some(kyc::Status::Verified), signals: Signals::default(),
                company_age_months: None, sector: None,
            };
            let v = decide(&f, model());
            prop_assert!(!v.reasons.is_empty());
            prop_assert_eq!(v.offer.is_some(), v.outcome == Outcome::Approved);
            if let Some(o) = v.offer {
                prop_assert_eq!(o.amount_pence.as_pence(), amount);
                prop_assert_eq!(o.term_months, term);
            }
        }
    }
}
