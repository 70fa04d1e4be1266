use axum::extract::{Path, State};
use axum::response::Response;
use lendhub_domain::ids::{ApplicationId, HubId};
use lendhub_store::{CommitError, LendingWrite, WriteSet};
use lendhub_system::random_token;

use super::error::JourneyError;
use super::see_other_with_cookie;
use super::session::{self, closed, now_for};
use super::state::JourneyState;
use crate::relying_party::RelyingParty;

/// `GET {apply_url}/{id}/resume`: a returning applicant (another browser,
/// a lapsed session, a referral settled later) signs in again; only the
/// person who signed in first gets the journey (`Journey::signed_in`), and
/// whoever is signed in stays so until then.
pub async fn resume(
    State(state): State<JourneyState>,
    Path(id): Path<String>,
) -> Result<Response, JourneyError> {
    let rp = match (&state.rp, state.open) {
        (Some(rp), true) => rp,
        _ => return Err(JourneyError::NotAvailable),
    };
    let application_id = ApplicationId::parse(&id).ok_or(JourneyError::NoJourney)?;
    let journey = state
        .lending
        .journey(&application_id)
        .await?
        .ok_or(JourneyError::NoJourney)?;
    let now = now_for(&state, &journey.owner).await?;
    if let Some(application) = state
        .lending
        .hub_application(&journey.owner, &application_id)
        .await?
        && let Some(why) = closed(&application, now)
    {
        return Err(JourneyError::Closed(why));
    }
    let token = random_token(32);
    let pending = RelyingParty::begin(&id);
    let resumed = journey
        .resume(&token, pending.clone(), now)
        .ok_or(JourneyError::SignInElsewhere)?;
    let mut writes = WriteSet::default();
    writes.push(LendingWrite::UpdateJourney(resumed));
    match state.flows.commit(writes).await {
        Ok(()) => {}
        Err(CommitError::Conflict) => {
            return Err(JourneyError::Conflict {
                application_id: id,
                why: "it changed in another window meanwhile".into(),
            });
        }
        Err(e) => return Err(JourneyError::Unavailable(e.to_string())),
    }
    Ok(see_other_with_cookie(
        &rp.authorize_url(&pending),
        session::cookie(&token, super::secure(&state)),
    ))
}
