//! Model monitoring (issue #48 item 5): each week, the population stability
//! index (PSI) of the score and of every feature against the training
//! population the model was fitted on, and the approval rate by partner.
//! A model whose score or a feature moved by more than [`ALERT_PSI`] over
//! enough decisions ([`Monitor::new`]'s minimum) is *drifted*: the lender's
//! operators are told, and so are the partners whose decisions it made.
//!
//! PSI = Σ (observed − expected) · ln(observed / expected) over a
//! variable's bins, the shares of the training population
//! (`scripts/credit_model.py` exports them) against the week's. The usual
//! reading: below 0.10 stable, 0.10 to 0.25 worth watching, above 0.25 a
//! population the model was not trained for.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::{Date, Duration, OffsetDateTime};

use super::features::Feature;
use super::scorecard::{Scorecard, Slot};
use super::{ModelRef, Scored, find};
use crate::lending::application::Decision;
use crate::partner::credentials::Environment;
use crate::sandbox::decisioning::Outcome;
use crate::tenant::{Tenant, TenantKind};

time::serde::format_description!(day, Date, "[year]-[month]-[day]");

/// Above this PSI a population has shifted (the conventional threshold).
pub const ALERT_PSI: f64 = 0.25;

/// Below this PSI a population is stable.
pub const WATCH_PSI: f64 = 0.10;

/// A share is floored here before its logarithm, so a bin empty on one
/// side counts as a large term, not an infinite one.
const FLOOR: f64 = 0.0001;

/// The PSI of `observed` counts against `expected` shares, bin by bin;
/// `None` with nothing observed.
pub fn psi(expected: &[f64], observed: &[u64]) -> Option<f64> {
    let n: u64 = observed.iter().sum();
    if n == 0 || expected.len() != observed.len() {
        return None;
    }
    let total: f64 = expected
        .iter()
        .zip(observed)
        .map(|(e, o)| {
            let a = (*o as f64 / n as f64).max(FLOOR);
            let e = e.max(FLOOR);
            (a - e) * (a / e).ln()
        })
        .sum();
    // Four places: what a report shows, the same on every machine.
    Some((total * 10_000.0).round() / 10_000.0)
}

/// The Monday a week starts on (weeks run Monday to Sunday, UTC).
pub fn week_of(day: Date) -> Date {
    day - Duration::days(i64::from(day.weekday().number_days_from_monday()))
}

/// One feature's stability over a week.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeatureDrift {
    pub feature: Feature,
    /// `None` when no decision gave the feature a value training measured.
    pub psi: Option<f64>,
    /// Values outside what training measured (unknown, or a category the
    /// model never saw): left out of the PSI, counted here.
    pub outside: u64,
}

/// One model's week: its decisions, and how far their population moved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelDrift {
    pub model: ModelRef,
    /// The decisions it scored.
    pub decisions: u64,
    pub score_psi: Option<f64>,
    pub features: Vec<FeatureDrift>,
    /// Drifted over enough decisions: an alert was raised.
    pub alert: bool,
    /// The client ids of the partners whose decisions it scored.
    pub partners: Vec<String>,
}

impl ModelDrift {
    /// What moved by more than [`ALERT_PSI`]: `score` or a feature's name,
    /// with its PSI, largest first.
    pub fn drifted(&self) -> Vec<(&'static str, f64)> {
        let mut out: Vec<(&'static str, f64)> = self
            .score_psi
            .filter(|p| *p > ALERT_PSI)
            .map(|p| ("score", p))
            .into_iter()
            .chain(self.features.iter().filter_map(|f| {
                f.psi
                    .filter(|p| *p > ALERT_PSI)
                    .map(|p| (f.feature.as_str(), p))
            }))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    }
}

/// A partner's decisions in a week, by outcome (as each stands now: a
/// referral an underwriter settled counts as settled).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartnerRate {
    pub client_id: String,
    pub decisions: u64,
    pub approved: u64,
    pub referred: u64,
    pub declined: u64,
}

impl PartnerRate {
    /// Approved of decided, 0 with none.
    pub fn approval_rate(&self) -> f64 {
        if self.decisions == 0 {
            return 0.0;
        }
        self.approved as f64 / self.decisions as f64
    }
}

/// One environment's week.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnvironmentReport {
    pub environment: Environment,
    pub decisions: u64,
    /// Each model that scored a decision, in the order first seen.
    pub models: Vec<ModelDrift>,
    /// By client id.
    pub partners: Vec<PartnerRate>,
}

/// A week's monitoring report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The Monday the week starts on; it ends before the next.
    #[serde(with = "day")]
    pub week: Date,
    #[serde(with = "time::serde::rfc3339")]
    pub ran_at: OffsetDateTime,
    /// The fewest decisions a model must have scored for its drift to
    /// alert: a PSI over a handful is noise.
    pub min_decisions: u64,
    pub environments: Vec<EnvironmentReport>,
}

impl Report {
    /// The models that alerted, with their environment.
    pub fn alerts(&self) -> impl Iterator<Item = (Environment, &ModelDrift)> {
        self.environments.iter().flat_map(|e| {
            e.models
                .iter()
                .filter(|m| m.alert)
                .map(move |m| (e.environment, m))
        })
    }
}

/// One model's decisions tallied into its bins.
struct Tally {
    model: &'static Scorecard,
    decisions: u64,
    scores: Vec<u64>,
    /// Per feature: its bins' counts, then the missing count.
    features: Vec<Vec<u64>>,
    outside: Vec<u64>,
    partners: std::collections::BTreeSet<String>,
}

impl Tally {
    fn new(model: &'static Scorecard) -> Self {
        Self {
            model,
            decisions: 0,
            scores: vec![0; model.score_bins.len()],
            features: model
                .features
                .iter()
                .map(|f| vec![0; f.bins.len() + 1])
                .collect(),
            outside: vec![0; model.features.len()],
            partners: std::collections::BTreeSet::new(),
        }
    }

    fn add(&mut self, scored: &Scored, client_id: &str) {
        self.decisions += 1;
        self.partners.insert(client_id.to_owned());
        if let Some(n) = self
            .scores
            .get_mut(self.model.score_bin(scored.score.probability))
        {
            *n += 1;
        }
        for (i, f) in self.model.features.iter().enumerate() {
            let slot = match f.slot(scored.features.get(f.name)) {
                Slot::Bin(b) => b,
                Slot::Missing => f.bins.len(),
                Slot::Outside => {
                    self.outside[i] += 1;
                    continue;
                }
            };
            if let Some(n) = self.features[i].get_mut(slot) {
                *n += 1;
            }
        }
    }

    fn drift(&self, min_decisions: u64) -> ModelDrift {
        let expected_scores: Vec<f64> = self.model.score_bins.iter().map(|b| b.share).collect();
        let features = self
            .model
            .features
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let expected: Vec<f64> = f
                    .bins
                    .iter()
                    .map(|b| b.share)
                    .chain([f.missing_share.unwrap_or(0.0)])
                    .collect();
                FeatureDrift {
                    feature: f.name,
                    psi: psi(&expected, &self.features[i]),
                    outside: self.outside[i],
                }
            })
            .collect();
        let mut drift = ModelDrift {
            model: ModelRef::of(self.model),
            decisions: self.decisions,
            score_psi: psi(&expected_scores, &self.scores),
            features,
            alert: false,
            partners: self.partners.iter().cloned().collect(),
        };
        drift.alert = self.decisions >= min_decisions && !drift.drifted().is_empty();
        drift
    }
}

#[derive(Default)]
struct Tallies {
    decisions: u64,
    models: Vec<Tally>,
    partners: BTreeMap<String, PartnerRate>,
}

/// A week's decisions, added one at a time (a week may hold more than
/// one wants in memory at once), then reported.
pub struct Monitor {
    min_decisions: u64,
    environments: BTreeMap<Environment, Tallies>,
}

impl Monitor {
    pub fn new(min_decisions: u64) -> Self {
        Self {
            min_decisions,
            environments: BTreeMap::new(),
        }
    }

    /// Counts a partner's decision; any other owner's is not the hub's
    /// and is left out.
    pub fn add(&mut self, decision: &Decision) {
        self.count(
            &decision.owner,
            decision.verdict.outcome,
            decision.verdict.scored.as_ref(),
        );
    }

    /// Counts a decision of `owner`'s with `outcome`, scored as `scored`.
    pub fn count(&mut self, owner: &Tenant, outcome: Outcome, scored: Option<&Scored>) {
        let TenantKind::Partner {
            client_id,
            livemode,
            ..
        } = owner.kind()
        else {
            return;
        };
        let environment = if livemode {
            Environment::Live
        } else {
            Environment::Test
        };
        let env = self.environments.entry(environment).or_default();
        env.decisions += 1;
        let rate = env
            .partners
            .entry(client_id.to_owned())
            .or_insert_with(|| PartnerRate {
                client_id: client_id.to_owned(),
                ..PartnerRate::default()
            });
        rate.decisions += 1;
        match outcome {
            Outcome::Approved => rate.approved += 1,
            Outcome::Referred => rate.referred += 1,
            Outcome::Declined => rate.declined += 1,
        }
        // A policy rule's decision was never scored; a model no longer
        // bundled has no bins to measure against.
        let Some(scored) = scored else {
            return;
        };
        let Some(model) = find(&scored.model.id, &scored.model.version) else {
            return;
        };
        let at = env
            .models
            .iter()
            .position(|t| std::ptr::eq(t.model, model))
            .unwrap_or_else(|| {
                env.models.push(Tally::new(model));
                env.models.len() - 1
            });
        env.models[at].add(scored, client_id);
    }

    pub fn report(self, week: Date, ran_at: OffsetDateTime) -> Report {
        let min = self.min_decisions;
        Report {
            week,
            ran_at,
            min_decisions: min,
            environments: self
                .environments
                .into_iter()
                .map(|(environment, e)| EnvironmentReport {
                    environment,
                    decisions: e.decisions,
                    models: e.models.iter().map(|t| t.drift(min)).collect(),
                    partners: e.partners.into_values().collect(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests;
