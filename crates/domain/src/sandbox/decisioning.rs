//! The deterministic sandbox decision engine. The outcome depends only on the
//! company number, the amount and the fixtures version: reserved companies have
//! fixed profiles; every other number gets a profile derived from a SHA-256 of
//! the fixtures version and the number.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::loan::{self, Offer};
use crate::sandbox::fixtures::{self, CompanyProfile};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Approved,
    Referred,
    Declined,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Approved => "approved",
            Outcome::Referred => "referred",
            Outcome::Declined => "declined",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    AffordabilityOk,
    AffordabilityLow,
    CreditOk,
    CreditAdverse,
    ThinFile,
    BankingDataInsufficient,
    DirectorRisk,
    IneligibleEntity,
    AmountExceedsLimit,
    ManualReviewRequired,
    /// A marketplace signal moved the decision (hub only; issue #17).
    MarketplaceSignal,
}

impl ReasonCode {
    pub const ALL: [ReasonCode; 11] = [
        ReasonCode::AffordabilityOk,
        ReasonCode::AffordabilityLow,
        ReasonCode::CreditOk,
        ReasonCode::CreditAdverse,
        ReasonCode::ThinFile,
        ReasonCode::BankingDataInsufficient,
        ReasonCode::DirectorRisk,
        ReasonCode::IneligibleEntity,
        ReasonCode::AmountExceedsLimit,
        ReasonCode::ManualReviewRequired,
        ReasonCode::MarketplaceSignal,
    ];

    /// The seed's spelling (`affordability_low`, …).
    pub fn as_str(self) -> &'static str {
        use ReasonCode::*;
        match self {
            AffordabilityOk => "affordability_ok",
            AffordabilityLow => "affordability_low",
            CreditOk => "credit_ok",
            CreditAdverse => "credit_adverse",
            ThinFile => "thin_file",
            BankingDataInsufficient => "banking_data_insufficient",
            DirectorRisk => "director_risk",
            IneligibleEntity => "ineligible_entity",
            AmountExceedsLimit => "amount_exceeds_limit",
            ManualReviewRequired => "manual_review_required",
            MarketplaceSignal => "marketplace_signal",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == raw)
    }

    /// The category the hub document pairs with each code.
    pub fn category(self) -> &'static str {
        use ReasonCode::*;
        match self {
            AffordabilityOk | AffordabilityLow | BankingDataInsufficient => "affordability",
            CreditOk | CreditAdverse | ThinFile => "credit",
            DirectorRisk => "identity",
            IneligibleEntity | AmountExceedsLimit => "eligibility",
            ManualReviewRequired | MarketplaceSignal => "policy",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reason {
    pub code: ReasonCode,
    pub category: String,
}

impl From<ReasonCode> for Reason {
    fn from(code: ReasonCode) -> Self {
        Reason {
            code,
            category: code.category().to_owned(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub outcome: Outcome,
    pub reasons: Vec<Reason>,
    pub offer: Option<Offer>,
    /// The facts the engine weighed, kept with the decision so that it can
    /// be explained later as it was made, whatever the fixtures say by then.
    /// `None` on decisions stored before the facts were kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facts: Option<CompanyProfile>,
}

/// What the engine knows about a company before looking at the amount.
pub fn profile(company_number: &str) -> CompanyProfile {
    fixtures::reserved(company_number)
        .map(|c| c.profile)
        .unwrap_or_else(|| derived_profile(company_number))
}

fn derived_profile(company_number: &str) -> CompanyProfile {
    let digest = Sha256::new()
        .chain_update(b"lendhub-sandbox-decision\0")
        .chain_update(fixtures::DECISION_SEED.as_bytes())
        .chain_update(b"\0")
        .chain_update(company_number.as_bytes())
        .finalize();
    // Credit score 300–899; limit £10,000–£500,000 in £10,000 steps.
    let score = 300 + u32::from(u16::from_be_bytes([digest[0], digest[1]]) % 600);
    let limit_pence = 1_000_000 * (1 + i64::from(digest[2] % 50));
    CompanyProfile {
        eligible: true,
        credit_score: score,
        credit_limit_pence: limit_pence,
        affordability_ratio_pct: 20 + u32::from(digest[3] % 60),
    }
}

/// Score bands (documented in the fixtures):
/// below 400 adverse; 400–499 thin file (referred); otherwise approved when the
/// amount is within the limit and affordable (amount ≤ limit × affordability %…
/// see [`decide`]).
pub fn decide(company_number: &str, amount_pence: i64) -> Decision {
    let p = profile(company_number);
    use ReasonCode::*;
    let declined = |codes: &[ReasonCode]| Decision {
        outcome: Outcome::Declined,
        reasons: codes.iter().copied().map(Reason::from).collect(),
        offer: None,
        facts: Some(p),
    };
    if !p.eligible {
        return declined(&[IneligibleEntity]);
    }
    if p.credit_score < 400 {
        return declined(&[CreditAdverse]);
    }
    if p.credit_score < 500 {
        return Decision {
            outcome: Outcome::Referred,
            reasons: vec![ThinFile.into(), ManualReviewRequired.into()],
            offer: None,
            facts: Some(p),
        };
    }
    if amount_pence > p.credit_limit_pence {
        return declined(&[AmountExceedsLimit]);
    }
    // Affordable when the request fits within the affordable share of the limit.
    if amount_pence * 100 > p.credit_limit_pence * i64::from(p.affordability_ratio_pct) {
        return declined(&[AffordabilityLow]);
    }
    Decision {
        outcome: Outcome::Approved,
        reasons: vec![CreditOk.into(), AffordabilityOk.into()],
        offer: Some(loan::offer(
            amount_pence,
            annual_rate_bps(p.credit_score),
            term_months(amount_pence),
        )),
        facts: Some(p),
    }
}

/// How long the simulated underwriter takes to settle a referred application.
pub const UNDERWRITING_DELAY: time::Duration = time::Duration::hours(24);

/// Scores at or above this pass the underwriter's review (see `fixtures::REFERRAL_RULE`).
pub const REVIEW_PASS_SCORE: u32 = 450;

/// The underwriter's decision on a referred application: deterministic for
/// the company and the amount, like the engine's.
pub fn review(company_number: &str, amount_pence: i64) -> Decision {
    let p = profile(company_number);
    use ReasonCode::*;
    let declined = |code: ReasonCode| Decision {
        outcome: Outcome::Declined,
        reasons: vec![code.into()],
        offer: None,
        facts: Some(p),
    };
    if p.credit_score < REVIEW_PASS_SCORE {
        return declined(CreditAdverse);
    }
    if amount_pence > p.credit_limit_pence {
        return declined(AmountExceedsLimit);
    }
    if amount_pence * 100 > p.credit_limit_pence * i64::from(p.affordability_ratio_pct) {
        return declined(AffordabilityLow);
    }
    Decision {
        outcome: Outcome::Approved,
        reasons: vec![CreditOk.into(), AffordabilityOk.into()],
        offer: Some(loan::offer(
            amount_pence,
            annual_rate_bps(p.credit_score),
            term_months(amount_pence),
        )),
        facts: Some(p),
    }
}

/// Better credit, lower price: 900 bps at a score of 899, 2,500 bps at 500.
pub fn annual_rate_bps(credit_score: u32) -> u32 {
    let score = credit_score.clamp(500, 899);
    900 + (899 - score) * 1600 / 399
}

/// Longer terms for larger amounts.
pub fn term_months(amount_pence: i64) -> u32 {
    match amount_pence {
        ..=1_000_000 => 12,
        1_000_001..=5_000_000 => 24,
        5_000_001..=25_000_000 => 36,
        _ => 60,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::Money;

    #[test]
    fn reserved_companies_have_their_documented_outcomes() {
        assert_eq!(decide("00000401", 1_000_000).outcome, Outcome::Approved);
        assert_eq!(decide("00000402", 1_000_000).outcome, Outcome::Referred);
        let codes = |n: &str, a| {
            decide(n, a)
                .reasons
                .iter()
                .map(|r| r.code)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            codes("00000403", 1_000_000),
            vec![ReasonCode::CreditAdverse]
        );
        assert_eq!(
            codes("00000404", 1_000_000),
            vec![ReasonCode::AffordabilityLow]
        );
        assert_eq!(
            codes("00000405", 1_000_000),
            vec![ReasonCode::IneligibleEntity]
        );
        assert_eq!(
            codes("00000406", 2_500_001),
            vec![ReasonCode::AmountExceedsLimit]
        );
        assert_eq!(decide("00000406", 1_000_000).outcome, Outcome::Approved);
    }

    #[test]
    fn approved_company_is_approved_across_the_whole_amount_range() {
        for amount in [5_000, 5_001, 1_000_000, 249_999_999, 250_000_000] {
            let d = decide("00000401", amount);
            assert_eq!(d.outcome, Outcome::Approved, "{amount}");
            let offer = d.offer.as_ref().map(|o| o.amount_pence);
            assert_eq!(offer, Some(Money::pence(amount)));
        }
    }

    #[test]
    fn same_input_same_decision_and_every_outcome_reachable() {
        let mut seen = std::collections::HashSet::new();
        for n in 0..2_000u32 {
            let number = format!("{:08}", 10_000_000 + n * 37);
            let a = decide(&number, 2_000_000);
            assert_eq!(a, decide(&number, 2_000_000));
            assert!(!a.reasons.is_empty());
            assert_eq!(a.offer.is_some(), a.outcome == Outcome::Approved);
            seen.insert(format!("{:?}", a.outcome));
        }
        assert_eq!(seen.len(), 3);
    }

    #[test]
    fn referred_fixtures_settle_as_documented() {
        assert_eq!(decide("00000407", 1_000_000).outcome, Outcome::Referred);
        let approved = review("00000402", 1_000_000);
        assert_eq!(approved.outcome, Outcome::Approved);
        assert_eq!(
            approved.offer.as_ref().map(|o| o.amount_pence),
            Some(Money::pence(1_000_000))
        );
        assert_eq!(annual_rate_bps(450), 2500, "priced as a score of 500");
        let declined = review("00000407", 1_000_000);
        assert_eq!(declined.outcome, Outcome::Declined);
        assert_eq!(
            declined.reasons,
            vec![Reason::from(ReasonCode::CreditAdverse)]
        );
        assert_eq!(
            review("00000402", 50_000_001).reasons,
            vec![Reason::from(ReasonCode::AmountExceedsLimit)]
        );
        assert_eq!(
            review("00000402", 30_000_001).reasons,
            vec![Reason::from(ReasonCode::AffordabilityLow)]
        );
        assert_eq!(review("00000402", 30_000_000).outcome, Outcome::Approved);
    }

    #[test]
    fn every_derived_referral_settles_the_same_way_every_time() {
        let mut outcomes = std::collections::HashSet::new();
        for n in 0..3_000u32 {
            let number = format!("{:08}", 20_000_000 + n * 41);
            if decide(&number, 2_000_000).outcome == Outcome::Referred {
                let settled = review(&number, 2_000_000);
                assert_eq!(settled, review(&number, 2_000_000));
                assert_ne!(settled.outcome, Outcome::Referred, "review always settles");
                outcomes.insert(format!("{:?}", settled.outcome));
            }
        }
        assert_eq!(outcomes.len(), 2, "both settlements are reachable");
    }

    #[test]
    fn price_falls_with_credit_score() {
        assert_eq!(annual_rate_bps(899), 900);
        assert_eq!(annual_rate_bps(500), 2500);
        assert!(annual_rate_bps(700) < annual_rate_bps(600));
    }

    proptest::proptest! {
        /// For any company and any amount the API accepts, the engine and
        /// the underwriter approve only what the profile affords, offer
        /// exactly the amount asked for at a price within the published
        /// range, and say the same twice.
        #[test]
        fn an_approval_is_always_within_the_limit_and_affordable(
            number in 0u32..100_000_000,
            amount in 5_000i64..=250_000_000,
        ) {
            let company = format!("{number:08}");
            let p = profile(&company);
            for (decision, pass_score) in [
                (decide(&company, amount), 500),
                (review(&company, amount), REVIEW_PASS_SCORE),
            ] {
                proptest::prop_assert!(!decision.reasons.is_empty());
                proptest::prop_assert_eq!(decision.offer.is_some(), decision.outcome == Outcome::Approved);
                if let Some(offer) = &decision.offer {
                    proptest::prop_assert!(p.credit_score >= pass_score);
                    proptest::prop_assert!(amount <= p.credit_limit_pence);
                    proptest::prop_assert!(
                        amount * 100 <= p.credit_limit_pence * i64::from(p.affordability_ratio_pct)
                    );
                    proptest::prop_assert_eq!(offer.amount_pence, Money::pence(amount));
                    proptest::prop_assert_eq!(offer.term_months, term_months(amount));
                    proptest::prop_assert!((900..=2_500).contains(&offer.annual_rate_bps));
                }
            }
            proptest::prop_assert_eq!(decide(&company, amount), decide(&company, amount));
        }

        /// Better credit never costs more.
        #[test]
        fn a_better_score_never_costs_more(score in 0u32..1_000, better in 0u32..200) {
            proptest::prop_assert!(annual_rate_bps(score + better) <= annual_rate_bps(score));
        }
    }
}
