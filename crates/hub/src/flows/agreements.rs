//! The loan agreement an application's applicant reads before signing,
//! and the one they signed: for the hosted journey's pages, the partner's
//! `GET /applications/{id}/agreement`, and their PDFs.

use lendhub_domain::lending::agreement::{Figures, Signed};
use lendhub_domain::lending::application::Application;
use lendhub_domain::tenant::Tenant;

use crate::documents;
use crate::flows::Context;
use crate::flows::error::FlowError;
use crate::flows::lending::find;

/// The agreement signed last for the caller's application `raw_id`: 404
/// for no such application, or none signed yet.
pub(crate) async fn signed(
    cx: &Context,
    owner: &Tenant,
    raw_id: &str,
) -> Result<Signed, FlowError> {
    let application = find(cx, owner, raw_id).await?;
    signed_for(cx, &application).await
}

/// The agreement signed last for `application`, or 404.
pub(crate) async fn signed_for(
    cx: &Context,
    application: &Application,
) -> Result<Signed, FlowError> {
    cx.lending
        .agreement(&application.owner, &application.id)
        .await?
        .ok_or(FlowError::NotFound("signed agreement for this application"))
}

/// The agreement `application`'s current offer would be signed as, not yet
/// signed; `None` without an offer to sign.
pub(crate) async fn draft(
    cx: &Context,
    application: &Application,
) -> Result<Option<String>, FlowError> {
    let Some(decision_id) = &application.decision_id else {
        return Ok(None);
    };
    let Some(decision) = cx
        .lending
        .hub_decision(&application.owner, decision_id)
        .await?
    else {
        return Ok(None);
    };
    match Figures::of(cx.lender(), application, &decision, None) {
        Some(figures) => documents::agreement_text(documents::AGREEMENT, &figures)
            .map(Some)
            .map_err(|e| FlowError::Internal(e.to_string())),
        None => Ok(None),
    }
}
