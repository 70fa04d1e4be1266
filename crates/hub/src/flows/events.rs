//! Events of the REST tier, as every flow records them.

use lendhub_domain::sandbox::events::{Event, EventType, HUB_API_VERSION, Publisher};
use lendhub_domain::tenant::{Tenant, TenantKind};
use serde::Serialize;
use time::OffsetDateTime;

/// A new event of the REST tier about `object`, owned by `owner`; `livemode`
/// is the owner's environment.
pub fn event(
    owner: &Tenant,
    kind: EventType,
    object: &impl Serialize,
    now: OffsetDateTime,
) -> Result<Event, serde_json::Error> {
    let livemode = matches!(owner.kind(), TenantKind::Partner { livemode: true, .. });
    let publisher = Publisher {
        api_version: HUB_API_VERSION,
        livemode,
    };
    let id: lendhub_domain::ids::EventId =
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    publisher.event(id, owner, kind, object, now)
}
