//! A partner's monthly statement, its lines, adjustments and payout.

use lendhub_domain::billing::statement::{Payer, Payout, Statement};
use lendhub_domain::tenant::TenantKind;
use serde::Serialize;
use time::Date;
use utoipa::ToSchema;

/// A sub-account's part of a revenue-share statement.
#[derive(Clone, Serialize, ToSchema)]
pub struct PayoutLineView {
    sub_account_id: String,
    gross_pence: i64,
    introductions: u32,
}

/// A correction of a finalized month, settled on this statement.
#[derive(Clone, Serialize, ToSchema)]
pub struct AdjustmentView {
    #[schema(example = "adj_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0")]
    id: String,
    /// The finalized month it corrects, `YYYY-MM`.
    corrects: String,
    /// Positive when you owe the lender more, negative when less.
    amount_pence: i64,
    reason: String,
}

/// A partner statement.
#[derive(Clone, Serialize, ToSchema)]
pub struct StatementView {
    #[schema(example = "pst_01KQ3V1Y2C8WZ3R5T6Y7X8V9W0")]
    id: String,
    #[schema(example = "partner_statement")]
    object: &'static str,
    /// The calendar month, `YYYY-MM`.
    #[schema(example = "2026-11")]
    period: String,
    #[schema(example = "GBP")]
    currency: &'static str,
    /// `integration_fee` or `revenue_share`.
    model: String,
    /// The fee tier (`up_to_500k`, `up_to_2m`, `up_to_10m`, `above_10m`)
    /// or the share tier (`referral`, `embedded`, `strategic`).
    tier: String,
    funded_originations: u32,
    funded_volume_pence: i64,
    /// The net margin of the loans the share is paid on (under the
    /// integration fee: of all the month's loans, for information).
    net_margin_pence: i64,
    /// The share of net margin, as a fraction (0.18); 0 under the fee.
    #[schema(example = 0.1)]
    share_rate: f64,
    share_rate_bps: u32,
    /// Under the integration fee: the fee per funded origination.
    fee_per_origination_pence: i64,
    /// What settles it, exclusive of VAT.
    payable_pence: i64,
    /// `partner` (an invoice of fees) or `lender` (a remittance of share).
    payable_by: &'static str,
    /// `draft` or `finalized`; a finalized statement never changes.
    pub(crate) status: &'static str,
    /// The 2nd working day of the next month in England and Wales.
    #[schema(value_type = String, format = Date)]
    invoice_date: String,
    #[schema(value_type = String, format = Date)]
    pay_date: String,
    /// Paid to sub-accounts directly, out of the share.
    payouts: Vec<PayoutLineView>,
    /// Corrections of finalized months, in `payable_pence`.
    adjustments: Vec<AdjustmentView>,
    livemode: bool,
}

impl StatementView {
    pub fn new(s: &Statement) -> Self {
        Self {
            id: s.id.to_string(),
            object: "partner_statement",
            period: s.period.clone(),
            currency: "GBP",
            model: s.model.clone(),
            tier: s.tier.clone(),
            funded_originations: s.funded_originations,
            funded_volume_pence: s.funded_volume_pence,
            net_margin_pence: s.net_margin_pence,
            share_rate: f64::from(s.share_rate_bps) / 10_000.0,
            share_rate_bps: s.share_rate_bps,
            fee_per_origination_pence: s.fee_per_origination_pence,
            payable_pence: s.payable_pence,
            payable_by: match s.payable_by {
                Payer::Partner => "partner",
                Payer::Lender => "lender",
            },
            status: s.status.as_str(),
            invoice_date: iso(s.invoice_date),
            pay_date: iso(s.pay_date),
            payouts: s.payouts.iter().map(payout_line).collect(),
            adjustments: s
                .adjustments
                .iter()
                .map(|a| AdjustmentView {
                    id: a.id.to_string(),
                    corrects: a.corrects.clone(),
                    amount_pence: a.amount_pence,
                    reason: a.reason.clone(),
                })
                .collect(),
            livemode: matches!(s.owner.kind(), TenantKind::Partner { livemode: true, .. }),
        }
    }
}

pub(crate) fn iso(d: Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), d.month() as u8, d.day())
}

pub(crate) fn payout_line(p: &Payout) -> PayoutLineView {
    PayoutLineView {
        sub_account_id: p.sub_account_id.to_string(),
        gross_pence: p.gross_pence,
        introductions: p.introductions,
    }
}
