//! A credit model's drift, as told to a partner whose decisions the model
//! made that week (`model.drift_detected`, issue #48 item 5): which model,
//! what moved and by how much, and the partner's own decisions. Other
//! partners' figures, and the lender's, stay the lender's.

use lendhub_domain::credit_model::drift::{ALERT_PSI, ModelDrift, PartnerRate};
use lendhub_domain::ids::{HubId, ModelDriftId};
use serde::Serialize;
use time::{Date, Duration, OffsetDateTime};
use utoipa::ToSchema;

use super::decision::ModelView;

/// What moved by more than the threshold.
#[derive(Serialize, ToSchema)]
pub struct DriftedView {
    /// `score` (the probability of default), or the feature's name.
    #[schema(example = "days_overdrawn")]
    variable: &'static str,
    /// Its population stability index against the training population.
    #[schema(example = 0.61)]
    psi: f64,
}

/// A credit model's drift: over a week, the population it scored moved
/// away from the one it was trained on by more than `threshold` (the
/// population stability index of its score or of a feature). Decisions
/// stay the model's; the lender's credit team reviews it.
#[derive(Serialize, ToSchema)]
pub struct ModelDriftView {
    #[schema(example = "mdr_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0")]
    id: String,
    #[schema(example = "model_drift")]
    object: &'static str,
    model: ModelView,
    /// The Monday the week began (UTC).
    #[schema(example = "2026-11-23", format = Date)]
    week_start: String,
    /// The Sunday it ended.
    #[schema(example = "2026-11-29", format = Date)]
    week_end: String,
    /// The index above which a population has drifted.
    #[schema(example = 0.25)]
    threshold: f64,
    /// The score's index; null if no decision was scored.
    #[schema(example = 0.61)]
    score_psi: Option<f64>,
    /// Largest first; never empty.
    drifted: Vec<DriftedView>,
    /// Your decisions that week, in this environment.
    decisions: u64,
    approved: u64,
    /// `approved / decisions`.
    #[schema(example = 0.4)]
    approval_rate: f64,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    livemode: bool,
}

impl ModelDriftView {
    pub fn new(
        id: &ModelDriftId,
        week: Date,
        drift: &ModelDrift,
        partner: &PartnerRate,
        livemode: bool,
        at: OffsetDateTime,
    ) -> Self {
        let end = week + Duration::days(6);
        Self {
            id: id.as_str().to_owned(),
            object: "model_drift",
            model: ModelView::of(&drift.model),
            week_start: week.to_string(),
            week_end: end.to_string(),
            threshold: ALERT_PSI,
            score_psi: drift.score_psi,
            drifted: drift
                .drifted()
                .into_iter()
                .map(|(variable, psi)| DriftedView { variable, psi })
                .collect(),
            decisions: partner.decisions,
            approved: partner.approved,
            approval_rate: (partner.approval_rate() * 10_000.0).round() / 10_000.0,
            created_at: at,
            livemode,
        }
    }
}
