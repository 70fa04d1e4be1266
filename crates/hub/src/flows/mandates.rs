//! Mandates (`mnd_…`): the payer's standing authority for a schedule's
//! collections, established by their first authorisation on the pay page
//! and revoked by them there (or by the test helper). The seed shows no
//! mandate fields beyond the id; docs/decisions.md records these.

use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::servicing::mandate::Mandate;
use lendhub_store::{CommitError, EventWrite, LendingWrite, WriteSet};
use time::OffsetDateTime;

use super::FlowError;
use crate::flows::Context;
use crate::flows::events::event;
use crate::views::mandate::MandateView;

/// The revoked mandate and the writes that record it with
/// `mandate.revoked`; `None` if it already was.
pub fn revoked_writes(
    cx: &Context,
    mandate: &Mandate,
    now: OffsetDateTime,
) -> Result<Option<(Mandate, WriteSet)>, serde_json::Error> {
    let Some(revoked) = mandate.revoked(now) else {
        return Ok(None);
    };
    let view = MandateView::new(&revoked, &cx.links);
    let announced = event(&revoked.owner, EventType::MandateRevoked, &view, now)?;
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::UpdateMandate(revoked.clone()))
        .push(EventWrite::InsertEvent(announced));
    Ok(Some((revoked, writes)))
}

/// The payer revokes `mandate` (`mandate.revoked`): later collections under
/// it fail with `mandate_revoked`. The mandate as it now stands; `None` if
/// another request moved it first.
pub async fn revoke(
    cx: &Context,
    mandate: &Mandate,
    now: OffsetDateTime,
) -> Result<Option<Mandate>, FlowError> {
    let Some((revoked, writes)) = revoked_writes(cx, mandate, now)? else {
        return Ok(Some(mandate.clone()));
    };
    crate::flows::mandate_at_bank::end_at_bank(cx, mandate).await;
    match cx.commit(writes).await {
        Ok(()) => Ok(Some(revoked)),
        Err(CommitError::Conflict) => Ok(None),
        Err(e) => Err(e.into()),
    }
}
