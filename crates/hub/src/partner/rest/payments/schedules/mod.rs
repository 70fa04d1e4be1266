//! Payment schedules (hub seed, Resources → Payment and schedule; States →
//! Schedule; issue #16): a partner's standing instruction to collect from
//! an account weekly or monthly. The scheduler (`collect.rs`, riding the
//! sweep) initiates each due instalment as a child payment, exactly once
//! across instances; `follow.rs` moves the schedule with its children.
//! One handler file per endpoint.

pub mod cancel;
pub mod create;
pub mod retrieve;

use lendhub_domain::ids::{HubId, ScheduleId};
use lendhub_domain::servicing::schedule::Schedule;
use lendhub_domain::tenant::Tenant;

use crate::partner::error::PartnerError;
use crate::partner::state::PartnerState;

/// A schedule of the caller's; 404 for another's.
pub(crate) async fn find(
    state: &PartnerState,
    owner: &Tenant,
    raw_id: &str,
) -> Result<Schedule, PartnerError> {
    let missing = PartnerError::NotFound("payment schedule");
    let Some(id) = ScheduleId::parse(raw_id) else {
        return Err(missing);
    };
    state.servicing.schedule(owner, &id).await?.ok_or(missing)
}
