//! A payout of a partner's revenue share, as the API shows it.

use lendhub_domain::billing::statement::PayoutRecord;
use lendhub_domain::tenant::TenantKind;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

/// A payout of revenue share: to a sub-account, or (`sub_account_id`
/// null) the partner's own remittance of a statement the lender pays.
#[derive(Serialize, ToSchema)]
pub struct PayoutView {
    #[schema(example = "po_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0")]
    id: String,
    #[schema(example = "payout")]
    object: &'static str,
    /// The sub-account paid; null for the partner's own remittance (the
    /// statement's `payable_pence`, paid to the account the lender holds
    /// for the partner).
    #[schema(example = "sub_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0")]
    sub_account_id: Option<String>,
    /// The month it is for, `YYYY-MM`.
    #[schema(example = "2026-11")]
    period: String,
    /// `pending` (its statement is a draft, or final and its pay date not
    /// reached), `in_transit` (sent over Faster Payments, not yet
    /// confirmed), `paid` (the rail confirmed it), `failed` (see
    /// `failure_reason`; the share stays owed), or `void` (its month was
    /// drafted again without it: never paid).
    #[schema(example = "paid")]
    status: &'static str,
    /// Its share of the net margin of the loans it introduced (for the
    /// partner's own remittance, the statement's payable).
    gross_pence: i64,
    /// The loans funded in the month that earned it: introduced by the
    /// sub-account, or for the partner's own, every loan with a share.
    introductions: u32,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    paid_at: Option<OffsetDateTime>,
    /// Why a `failed` payout was not paid: `no_payout_account` (the
    /// sub-account names none, or the lender holds none for the partner), `account_closed`, `account_unknown`,
    /// `account_stopped`, `name_mismatch`, or `rejected_by_bank:{code}`.
    failure_reason: Option<String>,
    livemode: bool,
}

impl PayoutView {
    pub fn new(p: &PayoutRecord) -> Self {
        Self {
            id: p.id.to_string(),
            object: "payout",
            sub_account_id: p.sub_account_id.as_ref().map(ToString::to_string),
            period: p.period.clone(),
            status: p.status.as_str(),
            gross_pence: p.gross_pence,
            introductions: p.introductions,
            paid_at: p.paid_at,
            failure_reason: p.failure_reason.clone(),
            livemode: matches!(p.owner.kind(), TenantKind::Partner { livemode: true, .. }),
        }
    }
}
