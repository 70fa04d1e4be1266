//! A payment (a collection or a refund), as answers and events show it.

use lendhub_domain::lending::disbursement::State;
use lendhub_domain::servicing::collection::{Payment, PaymentStatus};
use lendhub_domain::servicing::refund_payout::RefundPayout;
use lendhub_domain::tenant::TenantKind;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::links::Links;

/// A payment, as every answer and event shows it.
#[derive(Serialize, ToSchema)]
pub struct PaymentView {
    #[schema(example = "pay_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "payment")]
    object: &'static str,
    account_id: String,
    /// pending, processing, paid, failed or refunded.
    status: &'static str,
    amount_pence: i64,
    #[schema(example = "GBP")]
    currency: &'static str,
    reference: Option<String>,
    description: Option<String>,
    /// The hosted pay page (`{pay_url}/…`), while a link is pending (an
    /// instalment collected under a mandate has none).
    url: Option<String>,
    redirect_url: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    expires_at: OffsetDateTime,
    /// The payer's bank, once the payer chose it (or the mandate's).
    #[schema(example = "model_bank")]
    payer_bank: Option<String>,
    /// When the payer's bank accepted the payment and submitted it to
    /// Faster Payments (`processing`).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    authorised_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    settled_at: Option<OffsetDateTime>,
    /// insufficient_funds, payer_cancelled, mandate_revoked, link_expired or
    /// bank_unavailable (no money moved: a new link is safe).
    failure_reason: Option<&'static str>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    refunded_at: Option<OffsetDateTime>,
    /// The money of the latest refund on its way back to the account that
    /// paid, over Faster Payments; null before any refund.
    refund: Option<RefundView>,
    /// The schedule (`sch_…`) whose instalment this is, if any.
    schedule_id: Option<String>,
    /// Which instalment of the schedule, from 1.
    instalment: Option<u32>,
    /// The mandate (`mnd_…`) it was collected under, if any.
    mandate_id: Option<String>,
    livemode: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

/// A refund's payment back to the payer.
#[derive(Serialize, ToSchema)]
pub struct RefundView {
    #[schema(example = "rfd_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    /// pending (with the payout rail), paid (the payer's bank has it) or
    /// failed (refused by the payer's bank: the payment is `paid` again).
    #[schema(example = "paid")]
    status: &'static str,
    amount_pence: i64,
    /// Why the payer's bank refused it: account_closed, account_unknown,
    /// account_stopped, name_mismatch, or rejected_by_bank:{code}.
    failure_reason: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    paid_at: Option<OffsetDateTime>,
}

impl RefundView {
    fn new(r: &RefundPayout) -> Self {
        let (failure_reason, paid_at) = match &r.state {
            State::Rejected { reason, .. } => (Some(reason.clone()), None),
            State::Settled { at, .. } => (None, Some(*at)),
            _ => (None, None),
        };
        Self {
            id: r.id.to_string(),
            status: r.status(),
            amount_pence: r.amount.as_pence(),
            failure_reason,
            paid_at,
        }
    }
}

impl PaymentView {
    pub fn new(p: &Payment, links: &Links) -> Self {
        Self {
            id: p.id.to_string(),
            object: "payment",
            account_id: p.account_id.to_string(),
            status: p.status.as_str(),
            amount_pence: p.amount.as_pence(),
            currency: "GBP",
            reference: p.reference.clone(),
            description: p.description.clone(),
            url: (p.status == PaymentStatus::Pending && p.is_link())
                .then(|| links.payment_url(&p.id)),
            redirect_url: p.redirect_url.clone(),
            expires_at: p.expires_at,
            payer_bank: p.payer_bank.clone(),
            authorised_at: p.authorised_at,
            settled_at: p.settled_at,
            failure_reason: p.failure_reason.map(|r| r.as_str()),
            refunded_at: p.refunded_at,
            refund: p.refund_payout.as_ref().map(RefundView::new),
            schedule_id: p.schedule.as_ref().map(|i| i.schedule_id.to_string()),
            instalment: p.schedule.as_ref().map(|i| i.number),
            mandate_id: p.mandate_id.as_ref().map(ToString::to_string),
            livemode: matches!(p.owner.kind(), TenantKind::Partner { livemode: true, .. }),
            created_at: p.created_at,
        }
    }
}
