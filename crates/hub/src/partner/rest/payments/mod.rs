//! Payment links and their payments (hub seed, Resources → Payment; States
//! → Payment; issue #16): a partner asks for a link, the payer pays it on
//! the hosted pay page (`crate::pay`) by open-banking payment initiation,
//! and the payment settles by Faster Payments on the clock, posting a
//! collection to the account's ledger. One handler file per endpoint; the
//! state changes the pay page and the sweep share are flows
//! (`crate::flows::payments`).

pub mod create_link;
pub mod list;
pub mod refund;
pub mod retrieve;
pub mod schedules;

use lendhub_domain::servicing::collection::Payment;
use lendhub_domain::tenant::Tenant;

use crate::flows::lending::find_payment;
use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;

/// A payment of the caller's; 404 for another's.
pub(crate) async fn find(
    state: &PartnerState,
    owner: &Tenant,
    raw_id: &str,
) -> Result<Payment, PartnerError> {
    Ok(find_payment(&state.flows, owner, raw_id).await?)
}
