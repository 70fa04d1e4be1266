//! An application as every answer and event shows it.

use std::collections::BTreeMap;

use lendhub_domain::lending::application::{Application, Status};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::links::Links;
use crate::views::decision::DecisionView;

#[derive(Serialize, ToSchema)]
pub struct BusinessView {
    #[schema(example = "00000401")]
    company_number: String,
    /// As the company register gives it.
    #[schema(example = "Healthy Widgets Ltd")]
    name: String,
}

#[derive(Serialize, ToSchema)]
pub struct ApplicantView {
    email: Option<String>,
    first_name: Option<String>,
}

/// An application, as every answer and event shows it.
#[derive(Serialize, ToSchema)]
pub struct ApplicationView {
    #[schema(example = "app_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "application")]
    object: &'static str,
    /// created, submitted, in_review, approved, declined, funded, withdrawn or expired.
    #[schema(example = "created")]
    status: &'static str,
    business: BusinessView,
    amount_pence: i64,
    term_months: u32,
    /// working_capital, asset_finance, expansion, refinance or stock.
    purpose: Option<&'static str>,
    applicant: ApplicantView,
    redirect_uri: Option<String>,
    /// Yours, echoed on every object and event that follows.
    reference: Option<String>,
    introduction_id: Option<String>,
    /// Your own attribution of the deal, as given at creation.
    partner_ref: Option<String>,
    metadata: BTreeMap<String, String>,
    /// Where to send the applicant (`{apply_url}/start/{token}`): while the
    /// application is `created`, null afterwards.
    pub(crate) handoff_url: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    expires_at: OffsetDateTime,
    /// The decision, once the engine has resolved it (on retrieval; lists
    /// and events carry `decision_id`).
    decision: Option<DecisionView>,
    decision_id: Option<String>,
    /// The servicing account, once funded.
    account_id: Option<String>,
    /// Why the last disbursement failed (e.g. `account_closed`): the
    /// signature was set aside and the offer may be accepted again.
    funding_failure_reason: Option<String>,
    withdrawal_reason: Option<String>,
    livemode: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl ApplicationView {
    pub fn new(a: &Application, links: &Links) -> Self {
        let handoff_url = (a.status == Status::Created).then(|| links.handoff_url(&a.id));
        Self {
            id: a.id.to_string(),
            object: "application",
            status: a.status.as_str(),
            business: BusinessView {
                company_number: a.company_number.clone(),
                name: a.company_name.clone(),
            },
            amount_pence: a.amount.as_pence(),
            term_months: a.term_months,
            purpose: a.purpose.map(|p| p.as_str()),
            applicant: ApplicantView {
                email: a.applicant.email.clone(),
                first_name: a.applicant.first_name.clone(),
            },
            redirect_uri: a.redirect_uri.clone(),
            reference: a.reference.clone(),
            introduction_id: a.introduction_id.clone(),
            partner_ref: a.partner_ref.clone(),
            metadata: a.metadata.clone(),
            handoff_url,
            expires_at: a.expires_at,
            decision: None,
            decision_id: a.decision_id.as_ref().map(ToString::to_string),
            account_id: a.account_id.as_ref().map(ToString::to_string),
            funding_failure_reason: a.funding_failure.clone(),
            withdrawal_reason: a.withdrawal_reason.clone(),
            livemode: matches!(
                a.owner.kind(),
                lendhub_domain::tenant::TenantKind::Partner { livemode: true, .. }
            ),
            created_at: a.created_at,
        }
    }
}

impl ApplicationView {
    /// With its decision embedded, as retrieval shows it.
    pub fn with_decision(mut self, decision: DecisionView) -> Self {
        self.decision = Some(decision);
        self
    }
}
