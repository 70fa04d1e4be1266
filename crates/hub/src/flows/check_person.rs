//! Checking a person's identity, however their details were collected
//! (the REST tier, the hosted journey's company page).

use lendhub_domain::ids::{HubId, VerificationId};
use lendhub_domain::lending::kyc;
use lendhub_domain::lending::kyc::{Request, Status, Verification};
use lendhub_domain::sandbox::events::EventType;
use lendhub_store::{EventWrite, LendingWrite, WriteSet};

use crate::flows::Context;
use crate::flows::error::FlowError;
use crate::flows::events::event;
use crate::flows::lending::find;
use crate::views::verification::VerificationView;

/// An identity check however the person's details were collected (this
/// call, or the hosted journey's company page): the verification and its
/// event, as writes to commit together.
pub(crate) async fn check_person(
    cx: &Context,
    owner: &lendhub_domain::tenant::Tenant,
    request: &Request,
    now: time::OffsetDateTime,
) -> Result<(VerificationId, VerificationView, WriteSet), FlowError> {
    let mut checked = kyc::check(request, now.date()).map_err(FlowError::Validation)?;
    let application = match &checked.application_id {
        Some(id) => Some(find(cx, owner, id.as_str()).await?),
        None => None,
    };
    if checked.company_number.is_none() {
        checked.company_number = application.as_ref().map(|a| a.company_number.clone());
    }
    let answer = cx
        .people
        .for_owner(owner)
        .check(&checked.person, checked.company_number.as_deref())
        .await
        .map_err(|e| FlowError::Unavailable(e.to_string()))?;
    let id: VerificationId = lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    let reference = application.and_then(|a| a.reference);
    let verification =
        Verification::from_provider(id, owner.clone(), checked, reference, answer, now);
    let view = VerificationView::new(&verification);
    let kind = match verification.status {
        Status::Verified => EventType::IdentityVerified,
        Status::ReviewRequired => EventType::IdentityReviewRequired,
    };
    let announced =
        event(owner, kind, &view, now).map_err(|e| FlowError::Internal(e.to_string()))?;
    let id = verification.id.clone();
    let mut writes = WriteSet::default();
    writes
        .push(LendingWrite::InsertVerification(verification))
        .push(EventWrite::InsertEvent(announced));
    Ok((id, view, writes))
}
