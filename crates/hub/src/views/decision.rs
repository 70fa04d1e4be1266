//! A decision and its offer and reasons, as answers and events show them.

use lendhub_domain::lending::application::Decision;
use lendhub_domain::lending::underwriting::reason_value;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct OfferView {
    amount_pence: i64,
    term_months: u32,
    /// Indicative representative APR, percent.
    #[schema(example = 13.2)]
    apr: f64,
    monthly_repayment_pence: i64,
    total_repayable_pence: i64,
    /// True until the agreement is signed.
    is_indicative: bool,
}

#[derive(Serialize, ToSchema)]
pub struct ReasonView {
    /// The seed's reason code, e.g. `credit_ok`, `affordability_low`.
    code: &'static str,
    /// affordability, credit, identity, eligibility or policy.
    category: String,
    /// The same reason in the seed's second catalogue: adverse_credit,
    /// affordability, identity_unverified, out_of_appetite, or none.
    value: &'static str,
}

/// The credit model that made a decision.
#[derive(Serialize, ToSchema)]
pub struct ModelView {
    #[schema(example = "pd-scorecard")]
    id: String,
    #[schema(example = "1")]
    version: String,
}

impl ModelView {
    pub fn of(model: &lendhub_domain::credit_model::ModelRef) -> Self {
        Self {
            id: model.id.clone(),
            version: model.version.clone(),
        }
    }
}

/// A decision, rendered verbatim from what was stored.
#[derive(Serialize, ToSchema)]
pub struct DecisionView {
    #[schema(example = "dec_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "decision")]
    object: &'static str,
    application_id: String,
    /// approved, referred or declined.
    outcome: &'static str,
    offer: Option<OfferView>,
    /// Never empty.
    reasons: Vec<ReasonView>,
    /// When an approved offer lapses if not accepted.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    decided_at: OffsetDateTime,
    /// When the applicant accepted the offer and signed; from then the
    /// decision is locked (changes answer 423 `decision_locked`).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    accepted_at: Option<OffsetDateTime>,
    /// The application's reference.
    reference: Option<String>,
    /// The credit model whose probability of default made the decision;
    /// null when a policy rule (an ineligible entity, an amount over the
    /// limit, a fraud marker) or an underwriter did.
    model: Option<ModelView>,
    livemode: bool,
}

impl DecisionView {
    pub fn offer(&self) -> Option<&OfferView> {
        self.offer.as_ref()
    }

    pub fn new(d: &Decision) -> Self {
        let v = &d.verdict;
        Self {
            id: d.id.to_string(),
            object: "decision",
            application_id: d.application_id.to_string(),
            outcome: v.outcome.as_str(),
            offer: v.offer.as_ref().map(|o| OfferView {
                amount_pence: o.amount_pence.as_pence(),
                term_months: o.term_months,
                apr: o.apr,
                monthly_repayment_pence: o.monthly_repayment_pence.as_pence(),
                total_repayable_pence: o.total_repayable_pence.as_pence(),
                is_indicative: o.is_indicative,
            }),
            reasons: v
                .reasons
                .iter()
                .map(|r| ReasonView {
                    code: r.code.as_str(),
                    category: r.category.clone(),
                    value: reason_value(r.code),
                })
                .collect(),
            expires_at: d.expires_at,
            decided_at: d.decided_at,
            accepted_at: d.accepted_at,
            reference: d.reference.clone(),
            model: v.scored.as_ref().map(|s| ModelView::of(&s.model)),
            livemode: matches!(
                d.owner.kind(),
                lendhub_domain::tenant::TenantKind::Partner { livemode: true, .. }
            ),
        }
    }
}
