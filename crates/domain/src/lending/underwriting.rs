//! The REST tier's decision engine (issue #15). One engine over the facts a
//! hosted or white-label journey gathers — the register's entity, the
//! credit file, the open-banking summary, the directors' identity checks and
//! any marketplace signals — extending the sandbox's deterministic rules
//! (`decisioning`) with affordability from real cash flows.
//!
//! Pure: every fact is an argument, and the facts are kept with the decision
//! so it can be explained later exactly as it was made.

use serde::{Deserialize, Serialize};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Banking {
    /// Whole calendar months of transactions seen.
    pub months: u32,
    pub average_monthly_inflow_pence: i64,
    pub average_monthly_outflow_pence: i64,
}

/// Fewer months than this is too little to judge affordability on.
pub const MIN_BANKING_MONTHS: u32 = 3;
/// The share of free cash a repayment may take, in percent.
pub const MAX_REPAYMENT_SHARE_PCT: i64 = 50;

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
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub outcome: Outcome,
    /// Never empty.
    pub reasons: Vec<Reason>,
    /// When approved: for the amount and term asked, priced by the score.
    pub offer: Option<Offer>,
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

/// The rules, in order: eligibility, fraud, credit, amount, identity,
/// banking, affordability. The first that decides, decides.
pub fn decide(f: &Facts) -> Verdict {
    use ReasonCode::*;
    let with = |outcome, codes: &[ReasonCode]| Verdict {
        outcome,
        reasons: codes.iter().copied().map(Reason::from).collect(),
        offer: None,
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
    if f.credit.score < 400 {
        return with(Outcome::Declined, &[CreditAdverse]);
    }
    if f.amount_pence > f.credit.limit_pence {
        return with(Outcome::Declined, &[AmountExceedsLimit]);
    }
    if f.credit.score < 500 {
        return with(Outcome::Referred, &[ThinFile, ManualReviewRequired]);
    }
    if f.identity == Some(kyc::Status::ReviewRequired) {
        return with(Outcome::Referred, &[DirectorRisk, ManualReviewRequired]);
    }
    let Some(banking) = f.banking.filter(|b| b.months >= MIN_BANKING_MONTHS) else {
        return with(
            Outcome::Referred,
            &[BankingDataInsufficient, ManualReviewRequired],
        );
    };
    let offer = loan::offer(f.amount_pence, signalled_rate_bps(f), f.term_months);
    let repayment = offer.monthly_repayment_pence.as_pence();
    if repayment.saturating_mul(100)
        > free_cash_pence(&banking).saturating_mul(MAX_REPAYMENT_SHARE_PCT)
    {
        return with(Outcome::Declined, &[AffordabilityLow]);
    }
    Verdict {
        outcome: Outcome::Approved,
        reasons: with_signals(f, &[CreditOk, AffordabilityOk]),
        offer: Some(offer),
    }
}

/// The score's rate moved by the signals, within [`MAX_SIGNAL_ADJUST_BPS`].
fn signalled_rate_bps(f: &Facts) -> u32 {
    let adjust = f
        .signals
        .rate_adjust_bps
        .clamp(-MAX_SIGNAL_ADJUST_BPS, MAX_SIGNAL_ADJUST_BPS);
    (i64::from(annual_rate_bps(f.credit.score)) + i64::from(adjust)).max(0) as u32
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

/// An underwriter's approval of a referral: the offer the engine would make
/// for the amount and term asked, priced by the score (and any signals),
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
            signalled_rate_bps(f),
            f.term_months,
        )),
    }
}

/// The test environment's simulated underwriter (docs/simulators.md):
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
            }),
            Some(kyc::Status::Verified),
            Signals::default(),
        )
    }

    fn codes(v: &Verdict) -> Vec<ReasonCode> {
        v.reasons.iter().map(|r| r.code).collect()
    }

    #[test]
    fn the_sandbox_fixtures_decide_alike_where_the_rules_overlap() {
        let approved = decide(&facts("00000401", 1_000_000));
        assert_eq!(approved.outcome, Outcome::Approved);
        assert_eq!(
            codes(&approved),
            [ReasonCode::CreditOk, ReasonCode::AffordabilityOk]
        );
        let offer = approved.offer.unwrap();
        assert_eq!(offer.term_months, 24, "the term asked for");
        assert!(offer.is_indicative);
        assert_eq!(
            decide(&facts("00000402", 1_000_000)).outcome,
            Outcome::Referred
        );
        assert_eq!(
            codes(&decide(&facts("00000403", 1_000_000))),
            [ReasonCode::CreditAdverse]
        );
        assert_eq!(
            codes(&decide(&facts("00000405", 1_000_000))),
            [ReasonCode::IneligibleEntity]
        );
        assert_eq!(
            codes(&decide(&facts("00000406", 2_500_001))),
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
        });
        assert_eq!(codes(&decide(&f)), [ReasonCode::AffordabilityLow]);
        f.banking = Some(Banking {
            months: 2,
            ..f.banking.unwrap()
        });
        assert_eq!(
            codes(&decide(&f)),
            [
                ReasonCode::BankingDataInsufficient,
                ReasonCode::ManualReviewRequired
            ]
        );
        f.banking = None;
        assert_eq!(decide(&f).outcome, Outcome::Referred);
    }

    #[test]
    fn identity_and_signals_weigh_in() {
        let mut f = facts("00000401", 1_000_000);
        f.identity = Some(kyc::Status::ReviewRequired);
        assert_eq!(
            codes(&decide(&f)),
            [ReasonCode::DirectorRisk, ReasonCode::ManualReviewRequired]
        );
        let mut f = facts("00000401", 1_000_000);
        f.signals.fraud = true;
        assert_eq!(decide(&f).outcome, Outcome::Declined);
        let base = decide(&facts("00000401", 1_000_000)).offer.unwrap();
        let mut f = facts("00000401", 1_000_000);
        f.signals.rate_adjust_bps = 10_000;
        let dearer = decide(&f).offer.unwrap();
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
                                        average_monthly_outflow_pence: outflow }),
                identity: Some(kyc::Status::Verified), signals: Signals::default(),
            };
            let v = decide(&f);
            prop_assert!(!v.reasons.is_empty());
            prop_assert_eq!(v.offer.is_some(), v.outcome == Outcome::Approved);
            if let Some(o) = v.offer {
                prop_assert_eq!(o.amount_pence.as_pence(), amount);
                prop_assert_eq!(o.term_months, term);
            }
        }
    }
}
