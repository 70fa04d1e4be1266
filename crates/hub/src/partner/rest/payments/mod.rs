//! Payment links and their payments (hub seed, Resources → Payment; States
//! → Payment; issue #16): a partner asks for a link, the payer pays it on
//! the hosted pay page (`crate::pay`) by open-banking payment initiation,
//! and the payment settles by Faster Payments on the clock, posting a
//! collection to the account's ledger. One handler file per endpoint;
//! `moves.rs` holds the state changes the pay page and the sweep share.

pub mod create_link;
pub mod fields;
pub mod list;
pub mod mandates;
pub mod moves;
pub mod refund;
pub mod retrieve;
pub mod schedules;
pub mod sweep;

use lendhub_domain::ids::{HubId, PaymentId};
use lendhub_domain::servicing::collection::{Payment, PaymentStatus};
use lendhub_domain::tenant::{Tenant, TenantKind};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;

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
    #[schema(example = "test_payer_ok")]
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

impl PaymentView {
    pub fn new(p: &Payment, state: &PartnerState) -> Self {
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
                .then(|| link_url(state, &p.id)),
            redirect_url: p.redirect_url.clone(),
            expires_at: p.expires_at,
            payer_bank: p.payer_bank.clone(),
            authorised_at: p.authorised_at,
            settled_at: p.settled_at,
            failure_reason: p.failure_reason.map(|r| r.as_str()),
            refunded_at: p.refunded_at,
            schedule_id: p.schedule.as_ref().map(|i| i.schedule_id.to_string()),
            instalment: p.schedule.as_ref().map(|i| i.number),
            mandate_id: p.mandate_id.as_ref().map(ToString::to_string),
            livemode: matches!(p.owner.kind(), TenantKind::Partner { livemode: true, .. }),
            created_at: p.created_at,
        }
    }
}

/// The unguessable part of a payment's link: an HMAC of its id, so the
/// link can be shown again without being stored, and made for no other id.
pub fn link_token(state: &PartnerState, id: &impl HubId) -> String {
    use base64::Engine;
    use hmac::{Hmac, Mac};
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(state.pay_link_key.expose())
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(id.as_str().as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

pub fn link_url(state: &PartnerState, id: &PaymentId) -> String {
    format!("{}/{id}.{}", state.urls.pay(), link_token(state, id))
}

/// A payment of the caller's; 404 for another's.
pub(crate) async fn find(
    state: &PartnerState,
    owner: &Tenant,
    raw_id: &str,
) -> Result<Payment, PartnerError> {
    let missing = PartnerError::NotFound("payment");
    if PaymentId::parse(raw_id).is_none() {
        return Err(missing);
    }
    state.servicing.payment(owner, raw_id).await?.ok_or(missing)
}
