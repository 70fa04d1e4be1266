//! The hub's credit model (issue #48): a scorecard trained by
//! `scripts/credit_model.py` on a synthetic population (docs/guide/src/model-card.md)
//! and run here natively. The decision engine (`lending::underwriting`)
//! applies the policy rules first, then scores the facts' features with
//! the model; its probability of default sets the outcome through the
//! model's cut-offs and prices an approval, and its contributions give the
//! reasons.

pub mod drift;
pub mod features;
pub mod registry;
pub mod scorecard;

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

pub use features::{Feature, FeatureVector, Value};
pub use scorecard::{Contribution, Cutoffs, Score, ScoreBin, Scorecard, Unusable};

/// The scorecards built into lendhub, each exactly as training wrote it.
const BUNDLED: [&str; 2] = [
    include_str!("pd-scorecard-1.json"),
    include_str!("pd-scorecard-2.json"),
];

static MODELS: LazyLock<Vec<Scorecard>> = LazyLock::new(|| {
    BUNDLED
        .iter()
        // A test reads every bundled model, so none is ever left out.
        .filter_map(|json| Scorecard::parse(json).ok())
        .collect()
});

/// Every bundled scorecard, in the order bundled.
pub fn bundled() -> &'static [Scorecard] {
    &MODELS
}

/// The model decisions are made with when the operator has named none
/// ([`registry::DEFAULT_CHAMPION`]).
pub fn champion() -> Option<&'static Scorecard> {
    find(registry::DEFAULT_CHAMPION.0, registry::DEFAULT_CHAMPION.1)
}

/// The bundled scorecard `id` at `version`.
pub fn find(id: &str, version: &str) -> Option<&'static Scorecard> {
    bundled()
        .iter()
        .find(|m| m.id == id && m.version == version)
}

/// Which model made a decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelRef {
    pub id: String,
    pub version: String,
}

impl ModelRef {
    pub fn of(model: &Scorecard) -> Self {
        Self {
            id: model.id.clone(),
            version: model.version.clone(),
        }
    }
}

/// What the model said about a decision, kept with it: the model, the
/// features it scored, its answer and the cut-offs in force. From this
/// alone the decision is explained again, byte for byte, whatever model is
/// the champion by then.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    pub model: ModelRef,
    pub features: FeatureVector,
    pub score: Score,
    pub cutoffs: Cutoffs,
}

impl Scored {
    /// `model`'s score of `features`.
    pub fn by(model: &Scorecard, features: FeatureVector) -> Self {
        Self {
            model: ModelRef::of(model),
            score: model.score(&features),
            features,
            cutoffs: model.cutoffs,
        }
    }
}

#[cfg(test)]
mod tests;
