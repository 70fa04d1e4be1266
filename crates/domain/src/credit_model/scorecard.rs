//! The scorecard format `scripts/credit_model.py` exports, and its
//! evaluator: each feature's value falls in one bin, each bin carries
//! points (log-odds), and the probability of default is the logistic of
//! the intercept plus the points. The points less a feature's average over
//! the training population are its contribution: for an additive model,
//! exactly its SHAP value.

use serde::{Deserialize, Serialize};

use super::features::{Feature, FeatureVector, Known, Value};
use crate::sandbox::decisioning::{Outcome, ReasonCode};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scorecard {
    pub id: String,
    pub version: String,
    /// `binned_logistic_scorecard`: the only kind this evaluator runs.
    pub kind: String,
    pub intercept: f64,
    pub features: Vec<FeatureBins>,
    pub cutoffs: Cutoffs,
    pub price_bands: Vec<PriceBand>,
    pub training: Training,
    /// The training population's probabilities in bins (its deciles), with
    /// the share in each: what monitoring compares a week's scores with.
    pub score_bins: Vec<ScoreBin>,
    /// Companies with the probability training scored them at: the
    /// evaluator's test scores them alike.
    #[serde(default)]
    pub examples: Vec<Example>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    pub name: String,
    pub features: FeatureVector,
    pub probability: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureBins {
    pub name: Feature,
    /// What it measures, as an explanation says it.
    pub words: String,
    pub bins: Vec<Bin>,
    /// The average points over the training population.
    pub mean_points: f64,
    /// The points of a missing value, for features that may be missing.
    #[serde(default)]
    pub missing_points: Option<f64>,
    #[serde(default)]
    pub missing_reason: Option<ReasonCode>,
    /// The training population's share with the value missing.
    #[serde(default)]
    pub missing_share: Option<f64>,
}

/// A bin: values below `below` (and not in an earlier bin), or the
/// category named; the last numeric bin has no `below`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bin {
    pub points: f64,
    /// The reason code a weight from this bin is given under.
    pub reason: ReasonCode,
    #[serde(default)]
    pub below: Option<i64>,
    #[serde(default)]
    pub category: Option<String>,
    /// The training population's share in this bin.
    pub share: f64,
}

/// Probabilities below `below` (and not in an earlier bin); the last has
/// none.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreBin {
    #[serde(default)]
    pub below: Option<f64>,
    pub share: f64,
}

/// Where a value falls among a feature's bins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Bin(usize),
    Missing,
    /// Unknown, or a category the model never saw: outside what training
    /// measured.
    Outside,
}

/// Probability-of-default cut-offs: approved below `approve_below`,
/// declined from `decline_from`, referred between.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cutoffs {
    pub approve_below: f64,
    pub decline_from: f64,
}

impl Cutoffs {
    pub fn outcome(&self, probability: f64) -> Outcome {
        if probability < self.approve_below {
            Outcome::Approved
        } else if probability >= self.decline_from {
            Outcome::Declined
        } else {
            Outcome::Referred
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceBand {
    pub pd_below: f64,
    pub annual_rate_bps: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Training {
    pub seed: u64,
    pub rows: u64,
    pub default_rate: f64,
}

/// One feature's part in a score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Contribution {
    pub feature: Feature,
    /// Its points less the population's average: positive pushes toward
    /// default.
    pub weight: f64,
    pub points: f64,
    /// The reason code the weight is given under.
    pub reason: ReasonCode,
}

/// A scorecard's answer for one feature vector.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Score {
    pub log_odds: f64,
    /// Of default within twelve months.
    pub probability: f64,
    /// In the model's feature order.
    pub contributions: Vec<Contribution>,
}

/// Why a scorecard cannot be used.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum Unusable {
    #[error("the model is not JSON of the scorecard format: {0}")]
    Format(String),
    #[error("a {0} model, not a binned_logistic_scorecard")]
    Kind(String),
    #[error("feature {0:?} has no bins, or its numeric bins do not rise")]
    Bins(Feature),
    #[error("feature {0:?} is scored twice")]
    Twice(Feature),
    #[error("the cut-offs or price bands are out of order")]
    Bands,
}

impl Scorecard {
    /// Reads and checks a scorecard exported by the training script.
    pub fn parse(json: &str) -> Result<Self, Unusable> {
        let card: Scorecard =
            serde_json::from_str(json).map_err(|e| Unusable::Format(e.to_string()))?;
        if card.kind != "binned_logistic_scorecard" {
            return Err(Unusable::Kind(card.kind));
        }
        let mut seen = Vec::new();
        for f in &card.features {
            if seen.contains(&f.name) {
                return Err(Unusable::Twice(f.name));
            }
            seen.push(f.name);
            let edges: Vec<i64> = f.bins.iter().filter_map(|b| b.below).collect();
            let numeric = f.bins.iter().all(|b| b.category.is_none());
            let rising = edges.windows(2).all(|w| w[0] < w[1]);
            if f.bins.is_empty() || (numeric && (!rising || edges.len() + 1 != f.bins.len())) {
                return Err(Unusable::Bins(f.name));
            }
        }
        let c = card.cutoffs;
        let bands_rise = card
            .price_bands
            .windows(2)
            .all(|w| w[0].pd_below < w[1].pd_below);
        let cutoffs_hold =
            0.0 < c.approve_below && c.approve_below <= c.decline_from && c.decline_from <= 1.0;
        // Every approved probability must fall in some band.
        let bands_cover = card
            .price_bands
            .last()
            .is_some_and(|b| b.pd_below >= c.approve_below);
        let deciles_rise = !card.score_bins.is_empty()
            && card
                .score_bins
                .iter()
                .filter_map(|b| b.below)
                .collect::<Vec<_>>()
                .windows(2)
                .all(|w| w[0] < w[1]);
        if !(cutoffs_hold && bands_rise && bands_cover && deciles_rise) {
            return Err(Unusable::Bands);
        }
        Ok(card)
    }

    /// The score of `features`. A missing value scores the feature's missing
    /// bin (the average where the model has none); an unknown one, or a
    /// category the model never saw, scores the average.
    pub fn score(&self, features: &FeatureVector) -> Score {
        let mut log_odds = self.intercept;
        let contributions = self
            .features
            .iter()
            .map(|f| {
                let (points, reason) = f.points(features.get(f.name));
                log_odds += points;
                Contribution {
                    feature: f.name,
                    weight: points - f.mean_points,
                    points,
                    reason,
                }
            })
            .collect();
        Score {
            log_odds,
            probability: 1.0 / (1.0 + (-log_odds).exp()),
            contributions,
        }
    }

    /// The annual rate an approved probability is priced at.
    pub fn price_bps(&self, probability: f64) -> u32 {
        self.price_bands
            .iter()
            .find(|b| probability < b.pd_below)
            .or(self.price_bands.last())
            .map_or(0, |b| b.annual_rate_bps)
    }

    /// The index of the score bin `probability` falls in.
    pub fn score_bin(&self, probability: f64) -> usize {
        self.score_bins
            .iter()
            .position(|b| b.below.is_none_or(|edge| probability < edge))
            .unwrap_or(self.score_bins.len().saturating_sub(1))
    }

    /// The feature's words, for explanations.
    pub fn words(&self, feature: Feature) -> Option<&str> {
        self.features
            .iter()
            .find(|f| f.name == feature)
            .map(|f| f.words.as_str())
    }
}

impl FeatureBins {
    /// Where `value` falls.
    pub fn slot(&self, value: Known<'_>) -> Slot {
        let found = match value {
            Known::Missing => return Slot::Missing,
            Known::Unknown => return Slot::Outside,
            Known::Value(Value::Number(x)) => self
                .bins
                .iter()
                .position(|b| b.below.is_none_or(|edge| *x < edge)),
            Known::Value(Value::Category(c)) => self
                .bins
                .iter()
                .position(|b| b.category.as_deref() == Some(c.as_str())),
        };
        found.map_or(Slot::Outside, Slot::Bin)
    }

    fn points(&self, value: Known<'_>) -> (f64, ReasonCode) {
        let average = || {
            let reason = self
                .missing_reason
                .or_else(|| self.bins.first().map(|b| b.reason))
                .unwrap_or(ReasonCode::CreditAdverse);
            (self.mean_points, reason)
        };
        match self.slot(value) {
            Slot::Bin(i) => self
                .bins
                .get(i)
                .map_or_else(average, |b| (b.points, b.reason)),
            Slot::Missing => match (self.missing_points, self.missing_reason) {
                (Some(points), Some(reason)) => (points, reason),
                _ => average(),
            },
            Slot::Outside => average(),
        }
    }
}
