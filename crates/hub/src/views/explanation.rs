//! What weighed in a model-made decision, in plain words, from the
//! contributions stored with it (never scored again): the same factors on
//! the MCP `decisioning_explanation` tool, the dashboard's decision page
//! and the hosted journey's referral and decline pages.

use lendhub_domain::credit_model::{self, Feature, FeatureVector, Scored, Value, features::Known};
use lendhub_domain::lending::application::Decision;
use serde::Serialize;

/// One feature's part in a decision.
#[derive(Clone, Debug, Serialize)]
pub struct Factor {
    pub feature: &'static str,
    /// The value scored, as a person reads it (`none shown` when missing).
    pub value: String,
    /// Its weight in log-odds: positive raised the probability of default.
    pub weight: f64,
    /// `raised` or `lowered` the risk.
    pub effect: &'static str,
    /// The factor in a sentence.
    pub explanation: String,
}

/// A weight smaller than this says nothing worth reading.
const WORTH_READING: f64 = 0.01;

/// The factors of `scored`, the heaviest either way first.
pub fn factors(scored: &Scored) -> Vec<Factor> {
    let model = credit_model::find(&scored.model.id, &scored.model.version);
    let mut parts: Vec<&credit_model::Contribution> = scored
        .score
        .contributions
        .iter()
        .filter(|c| c.weight.abs() >= WORTH_READING)
        .collect();
    parts.sort_by(|a, b| b.weight.abs().total_cmp(&a.weight.abs()));
    parts
        .into_iter()
        .map(|c| {
            let words = model
                .and_then(|m| m.words(c.feature))
                .unwrap_or(c.feature.as_str());
            let value = shown(c.feature, &scored.features);
            let effect = if c.weight > 0.0 { "raised" } else { "lowered" };
            let mut sentence = words.to_owned();
            if let Some(first) = sentence.get(..1) {
                sentence.replace_range(..1, &first.to_uppercase());
            }
            Factor {
                feature: c.feature.as_str(),
                explanation: format!("{sentence} ({value}) {effect} the risk."),
                value,
                weight: (c.weight * 10_000.0).round() / 10_000.0,
                effect,
            }
        })
        .collect()
}

/// The factors of `d` that raised its risk, heaviest first: what a
/// referral or a decline is explained by (none for a decision no model made).
pub fn raising(d: &Decision) -> Vec<Factor> {
    d.verdict
        .scored
        .as_ref()
        .map(factors)
        .unwrap_or_default()
        .into_iter()
        .filter(|f| f.effect == "raised")
        .collect()
}

/// A feature's value as a person reads it.
fn shown(feature: Feature, v: &FeatureVector) -> String {
    let n = match v.get(feature) {
        Known::Missing => return "none shown".to_owned(),
        Known::Unknown => return "not read".to_owned(),
        Known::Value(Value::Category(c)) => return c.replace('_', " "),
        Known::Value(Value::Number(n)) => *n,
    };
    match feature {
        Feature::AmountToLimitPct
        | Feature::RepaymentToFreeCashPct
        | Feature::InflowVolatilityPct => format!("{n} %"),
        Feature::CompanyAgeMonths | Feature::BankingMonths => format!("{n} months"),
        Feature::DaysOverdrawn => format!("{n} days"),
        Feature::DirectorReview => if n > 0 { "yes" } else { "no" }.to_owned(),
        Feature::BureauScore | Feature::Sector | Feature::ReturnedPayments => n.to_string(),
    }
}
