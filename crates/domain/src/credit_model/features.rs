//! The feature vector a decision is scored on, derived from the facts the
//! engine gathered, exactly as `scripts/credit_model.py` derives it from a
//! generated company (integers, floored, so a decision stored today is
//! scored the same on any machine later).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::lending::kyc;
use crate::lending::underwriting::{Facts, free_cash_pence};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    BureauScore,
    AmountToLimitPct,
    CompanyAgeMonths,
    Sector,
    BankingMonths,
    RepaymentToFreeCashPct,
    InflowVolatilityPct,
    DaysOverdrawn,
    ReturnedPayments,
    DirectorReview,
}

impl Feature {
    pub fn as_str(self) -> &'static str {
        match self {
            Feature::BureauScore => "bureau_score",
            Feature::AmountToLimitPct => "amount_to_limit_pct",
            Feature::CompanyAgeMonths => "company_age_months",
            Feature::Sector => "sector",
            Feature::BankingMonths => "banking_months",
            Feature::RepaymentToFreeCashPct => "repayment_to_free_cash_pct",
            Feature::InflowVolatilityPct => "inflow_volatility_pct",
            Feature::DaysOverdrawn => "days_overdrawn",
            Feature::ReturnedPayments => "returned_payments",
            Feature::DirectorReview => "director_review",
        }
    }
}

/// A feature's value: a whole number, or a category.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Number(i64),
    Category(String),
}

/// Every feature the facts give a value. A feature absent is missing (as
/// a company that connected no bank account has no cash-flow features); a
/// feature present as `null` is unknown (facts kept before lendhub read
/// it) and scores the population's average.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FeatureVector(BTreeMap<Feature, Option<Value>>);

/// What a vector says of one feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known<'a> {
    Value(&'a Value),
    Unknown,
    Missing,
}

impl FeatureVector {
    pub fn get(&self, feature: Feature) -> Known<'_> {
        match self.0.get(&feature) {
            Some(Some(v)) => Known::Value(v),
            Some(None) => Known::Unknown,
            None => Known::Missing,
        }
    }

    pub fn set(&mut self, feature: Feature, value: Option<Value>) {
        self.0.insert(feature, value);
    }

    pub fn iter(&self) -> impl Iterator<Item = (Feature, Option<&Value>)> {
        self.0.iter().map(|(f, v)| (*f, v.as_ref()))
    }
}

/// The reference rate the affordability feature prices a repayment at,
/// whatever the offer's own: the score must not depend on the price it
/// sets.
pub const REFERENCE_RATE: f64 = 0.15;

/// The monthly instalment repaying `amount_pence` over `months` at
/// [`REFERENCE_RATE`], in pence.
pub fn reference_repayment(amount_pence: i64, months: u32) -> f64 {
    let r = REFERENCE_RATE / 12.0;
    let n = f64::from(months.max(1));
    amount_pence as f64 * r / (1.0 - (1.0 + r).powf(-n))
}

/// The features of `facts`.
pub fn of(facts: &Facts) -> FeatureVector {
    let mut v = FeatureVector::default();
    let number = |n: i64| Some(Value::Number(n));
    let count = |n: Option<u32>| n.map(|n| Value::Number(i64::from(n)));
    v.set(Feature::BureauScore, number(i64::from(facts.credit.score)));
    let limit = facts.credit.limit_pence.max(1);
    v.set(
        Feature::AmountToLimitPct,
        number(facts.amount_pence.saturating_mul(100) / limit),
    );
    if facts.company_age_months.is_some() {
        v.set(Feature::CompanyAgeMonths, count(facts.company_age_months));
    }
    if let Some(sector) = &facts.sector {
        v.set(Feature::Sector, Some(Value::Category(sector.clone())));
    }
    if let Some(b) = &facts.banking {
        v.set(Feature::BankingMonths, number(i64::from(b.months)));
        let free = free_cash_pence(b);
        let ratio = if free > 0 {
            (reference_repayment(facts.amount_pence, facts.term_months) / free as f64).min(10.0)
        } else {
            2.0
        };
        v.set(
            Feature::RepaymentToFreeCashPct,
            number((ratio * 100.0).floor() as i64),
        );
        // A connected account's measures lendhub did not read are unknown,
        // not missing: missing is for an account never connected.
        v.set(Feature::InflowVolatilityPct, count(b.inflow_volatility_pct));
        v.set(Feature::DaysOverdrawn, count(b.days_overdrawn));
        v.set(Feature::ReturnedPayments, count(b.returned_payments));
    }
    let review = facts.identity == Some(kyc::Status::ReviewRequired);
    v.set(Feature::DirectorReview, number(i64::from(review)));
    v
}
