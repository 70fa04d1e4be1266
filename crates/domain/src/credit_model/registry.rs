//! Which bundled model decides (the champion) and which scores beside it in
//! shadow (the challenger), as the lender's operator set them (`lendhub
//! models promote | shadow`), and what the shadow scores say against the
//! champion's. A shadow score is the lender's: it is stored, compared and
//! never shown to a partner.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{ModelRef, Scorecard, find};
use crate::ids::DecisionId;
use crate::sandbox::decisioning::Outcome;
use crate::tenant::Tenant;

/// The model that decides when the operator has named none.
pub const DEFAULT_CHAMPION: (&str, &str) = ("pd-scorecard", "1");

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Champion,
    Challenger,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Champion => "champion",
            Role::Challenger => "challenger",
        }
    }
}

/// The roles as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Roles {
    pub champion: Option<ModelRef>,
    pub challenger: Option<ModelRef>,
}

/// The models in force.
#[derive(Clone, Copy, Debug)]
pub struct InForce {
    pub champion: &'static Scorecard,
    pub challenger: Option<&'static Scorecard>,
}

impl Roles {
    /// The models these roles name, among the bundled ones: a champion no
    /// longer bundled falls back to the default, and a challenger that is
    /// not bundled, or is the champion, scores nothing. `None` only if the
    /// default itself is missing.
    pub fn in_force(&self) -> Option<InForce> {
        let bundled = |r: &ModelRef| find(&r.id, &r.version);
        let champion = self
            .champion
            .as_ref()
            .and_then(bundled)
            .or_else(|| find(DEFAULT_CHAMPION.0, DEFAULT_CHAMPION.1))?;
        let challenger = self
            .challenger
            .as_ref()
            .and_then(bundled)
            .filter(|c| !std::ptr::eq(*c, champion));
        Some(InForce {
            champion,
            challenger,
        })
    }
}

/// A challenger's score of a decision the champion made, beside the
/// champion's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShadowScore {
    pub decision_id: DecisionId,
    pub owner: Tenant,
    pub champion: ModelRef,
    pub champion_probability: f64,
    pub champion_outcome: Outcome,
    pub challenger: ModelRef,
    pub probability: f64,
    pub outcome: Outcome,
    #[serde(with = "time::serde::rfc3339")]
    pub scored_at: OffsetDateTime,
}

/// Probability-of-default bands the comparison counts decisions in.
pub const BANDS: [f64; 7] = [0.01, 0.02, 0.05, 0.10, 0.20, 0.50, 1.0];

/// One model's side of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Side {
    pub model: ModelRef,
    pub approved: u32,
    pub referred: u32,
    pub declined: u32,
    pub approval_rate: f64,
    pub mean_probability: f64,
    /// Decisions per band of [`BANDS`]: below 1 %, 1–2 %, … 50–100 %.
    pub distribution: [u32; 7],
}

/// The champion and a challenger over the same decisions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub decisions: u32,
    /// Decisions the two would have decided differently.
    pub disagreements: u32,
    pub champion: Side,
    pub challenger: Side,
}

fn side(model: &ModelRef, scored: impl Iterator<Item = (f64, Outcome)>) -> Side {
    let mut s = Side {
        model: model.clone(),
        approved: 0,
        referred: 0,
        declined: 0,
        approval_rate: 0.0,
        mean_probability: 0.0,
        distribution: [0; 7],
    };
    let mut sum = 0.0;
    for (p, outcome) in scored {
        match outcome {
            Outcome::Approved => s.approved += 1,
            Outcome::Referred => s.referred += 1,
            Outcome::Declined => s.declined += 1,
        }
        sum += p;
        let band = BANDS.iter().position(|b| p < *b).unwrap_or(BANDS.len() - 1);
        s.distribution[band] += 1;
    }
    let n = s.approved + s.referred + s.declined;
    if n > 0 {
        s.approval_rate = f64::from(s.approved) / f64::from(n);
        s.mean_probability = sum / f64::from(n);
    }
    s
}

/// The comparison of the shadow scores of `challenger` beside `champion`
/// among `scores` (others are left out); `None` if there are none.
pub fn compare(
    scores: &[ShadowScore],
    champion: &ModelRef,
    challenger: &ModelRef,
) -> Option<Comparison> {
    let pairs: Vec<&ShadowScore> = scores
        .iter()
        .filter(|s| &s.champion == champion && &s.challenger == challenger)
        .collect();
    if pairs.is_empty() {
        return None;
    }
    Some(Comparison {
        decisions: pairs.len() as u32,
        disagreements: pairs
            .iter()
            .filter(|s| s.outcome != s.champion_outcome)
            .count() as u32,
        champion: side(
            champion,
            pairs
                .iter()
                .map(|s| (s.champion_probability, s.champion_outcome)),
        ),
        challenger: side(challenger, pairs.iter().map(|s| (s.probability, s.outcome))),
    })
}
