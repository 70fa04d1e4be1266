//! A sub-account (beta), as the API shows it.

use lendhub_domain::partner::sub_account::SubAccount;
use lendhub_domain::tenant::TenantKind;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

/// The account a sub-account's payouts are paid to.
#[derive(Serialize, ToSchema)]
pub struct PayoutAccountView {
    #[schema(example = "Northern Brokers Ltd")]
    name: String,
    #[schema(example = "040004")]
    sort_code: String,
    /// The account number's last four digits.
    #[schema(example = "0010")]
    last4: String,
}

/// A sub-account.
#[derive(Serialize, ToSchema)]
pub struct SubAccountView {
    #[schema(example = "sub_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "sub_account")]
    object: &'static str,
    #[schema(example = "Northern Brokers Ltd")]
    name: String,
    /// Its share of the net margin on the loans it introduces, in basis
    /// points (1000 = 10 %).
    revenue_share_bps: u32,
    /// Where its payouts are paid; `null` until one is given.
    payout_account: Option<PayoutAccountView>,
    livemode: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl SubAccountView {
    pub fn new(s: &SubAccount) -> Self {
        Self {
            id: s.id.to_string(),
            object: "sub_account",
            name: s.name.clone(),
            revenue_share_bps: s.revenue_share_bps,
            payout_account: s.payout_account.as_ref().map(|a| PayoutAccountView {
                name: a.name.clone(),
                sort_code: a.sort_code().to_owned(),
                last4: a.last4().to_owned(),
            }),
            livemode: matches!(s.owner.kind(), TenantKind::Partner { livemode: true, .. }),
            created_at: s.created_at,
        }
    }
}
