//! A partner's sub-accounts (hub seed, Resources → Sub-account (beta);
//! issue #17): the distribution partners a partner works through. An
//! application that names one in `introduction_id` is attributed to it,
//! and the loan it funds keeps that attribution (docs/decisions.md).

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::ids::SubAccountId;
use crate::tenant::Tenant;

/// The master rate a sub-account's share defaults to, and may not exceed:
/// the seed's Referral tier, 10 % of net margin, until a partner's
/// commercial terms name another.
pub const MASTER_SHARE_BPS: u32 = 1_000;
pub const MAX_NAME: usize = 200;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubAccount {
    pub id: SubAccountId,
    /// The partner in one environment.
    pub owner: Tenant,
    pub name: String,
    /// Its share of the net margin on the loans it introduces, in basis
    /// points.
    pub revenue_share_bps: u32,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}
