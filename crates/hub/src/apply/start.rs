use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use lendhub_domain::ids::HubId;
use lendhub_domain::lending::application::{Application, Status};
use lendhub_domain::lending::journey::Journey;
use lendhub_store::{CommitError, LendingWrite, WriteSet};
use lendhub_system::random_token;

use super::error::JourneyError;
use super::session::{self, closed, now_for};
use super::state::JourneyState;
use super::{see_other_with_cookie, to_overview};
use crate::relying_party::RelyingParty;

/// `GET {apply_url}/start/{id}.{token}`: the handoff link. Its first use
/// starts the application's journey in this browser and sends it to sign
/// in; any later use from another browser is refused (single use), while
/// the browser that holds the journey simply continues.
pub async fn start(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Path(link): Path<String>,
) -> Result<Response, JourneyError> {
    let rp = match (&state.rp, state.open) {
        (Some(rp), true) => rp,
        _ => return Err(JourneyError::NotAvailable),
    };
    let application_id = state
        .links
        .open_handoff(&link)
        .ok_or(JourneyError::LinkInvalid)?;
    let id = application_id.as_str();
    let application = state
        .lending
        .application_any_owner(&application_id)
        .await?
        .ok_or(JourneyError::LinkInvalid)?;
    let now = now_for(&state, &application.owner).await?;
    if let Some(why) = closed(&application, now) {
        return Err(JourneyError::Closed(why));
    }
    if let Some(journey) = state.lending.journey(&application_id).await? {
        let token = session::token(&headers);
        if token.is_some_and(|t| journey.held_by(t, now)) {
            return Ok(to_overview(id));
        }
        // Back before signing in finished: the same sign-in again.
        if let Some(pending) = token.and_then(|t| journey.signing_in(t, now)) {
            let url = rp.authorize_url_hinting(pending, application.applicant.email.as_deref());
            return Ok(Redirect::to(&url).into_response());
        }
        let pending = RelyingParty::begin(id);
        let token = random_token(32);
        let Some(restarted) = journey.restart(&token, pending.clone(), now) else {
            return Err(JourneyError::LinkUsed {
                application_id: id.to_owned(),
                resumable: journey.applicant.is_some(),
            });
        };
        return begin_sign_in(
            &state,
            (rp, &application),
            LendingWrite::UpdateJourney(restarted),
            &token,
            &pending,
        )
        .await;
    }
    if application.status != Status::Created {
        return Err(JourneyError::Completed);
    }
    let token = random_token(32);
    let pending = RelyingParty::begin(id);
    let journey = Journey::start(
        application_id,
        application.owner.clone(),
        &token,
        pending.clone(),
        now,
    );
    begin_sign_in(
        &state,
        (rp, &application),
        LendingWrite::StartJourney(journey),
        &token,
        &pending,
    )
    .await
}

/// Commits the journey's sign-in under way and sends the browser to the
/// provider with its session cookie; a lost race is the link used.
async fn begin_sign_in(
    state: &JourneyState,
    (rp, application): (&RelyingParty, &Application),
    write: LendingWrite,
    token: &str,
    pending: &lendhub_domain::lending::journey::PendingSignIn,
) -> Result<Response, JourneyError> {
    let mut writes = WriteSet::default();
    writes.push(write);
    // The sign-in form starts with the e-mail the partner named.
    let login_hint = application.applicant.email.as_deref();
    match state.flows.commit(writes).await {
        Ok(()) => Ok(see_other_with_cookie(
            &rp.authorize_url_hinting(pending, login_hint),
            session::cookie(token, super::secure(state)),
        )),
        Err(CommitError::Conflict) => Err(JourneyError::LinkUsed {
            application_id: application.id.to_string(),
            resumable: false,
        }),
        Err(e) => Err(JourneyError::Unavailable(e.to_string())),
    }
}
