//! Servicing accounts (hub seed, Resources → Account): opened when a loan
//! is funded (issue #15); serviced by issue #16.

use lendhub_domain::hub_ids::HubId;
use lendhub_domain::servicing::Account;
use lendhub_domain::tenant::TenantKind;
use serde::Serialize;
use time::OffsetDateTime;

/// An account, as the `account.activated` and `loan.funded` events show it.
#[derive(Serialize)]
pub struct AccountView {
    id: String,
    object: &'static str,
    status: &'static str,
    application_id: String,
    decision_id: String,
    reference: Option<String>,
    company_number: String,
    principal_pence: i64,
    term_months: u32,
    apr: f64,
    monthly_repayment_pence: i64,
    total_repayable_pence: i64,
    /// The Faster Payments payment that paid the principal out.
    disbursement_id: String,
    #[serde(with = "time::serde::rfc3339")]
    opened_at: OffsetDateTime,
    livemode: bool,
}

impl AccountView {
    pub fn new(a: &Account) -> Self {
        Self {
            id: a.id.as_str().to_owned(),
            object: "account",
            status: a.status.as_str(),
            application_id: a.application_id.as_str().to_owned(),
            decision_id: a.decision_id.as_str().to_owned(),
            reference: a.reference.clone(),
            company_number: a.company_number.clone(),
            principal_pence: a.principal().as_pence(),
            term_months: a.terms.term_months,
            apr: a.terms.apr,
            monthly_repayment_pence: a.terms.monthly_repayment_pence.as_pence(),
            total_repayable_pence: a.terms.total_repayable_pence.as_pence(),
            disbursement_id: a.disbursement_id.clone(),
            opened_at: a.opened_at,
            livemode: matches!(a.owner.kind(), TenantKind::Partner { livemode: true, .. }),
        }
    }
}
