use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use lendhub_domain::ids::{ApplicationId, HubId};
use lendhub_domain::lending::journey::NotTheApplicant;
use lendhub_store::{CommitError, LendingWrite, WriteSet};
use serde::Deserialize;

use super::error::JourneyError;
use super::session::{self, now_for};
use super::state::JourneyState;
use super::to_overview;

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET {apply_url}/callback`: the identity provider sends the browser back
/// with a code (or an error). The `state` names the application and must be
/// the one this browser's journey is waiting for; the code is exchanged
/// with the PKCE verifier and the ID token verified (`rp`).
pub async fn callback(
    State(state): State<JourneyState>,
    headers: HeaderMap,
    Query(q): Query<CallbackQuery>,
) -> Result<Response, JourneyError> {
    let rp = state.rp.as_ref().ok_or(JourneyError::NotAvailable)?;
    let returned = q.state.as_deref().ok_or(JourneyError::LinkInvalid)?;
    let (id, _) = returned.split_once('.').ok_or(JourneyError::LinkInvalid)?;
    let application_id = ApplicationId::parse(id).ok_or(JourneyError::NoJourney)?;
    let journey = state
        .lending
        .journey(&application_id)
        .await?
        .ok_or(JourneyError::NoJourney)?;
    let now = now_for(&state, &journey.owner).await?;
    let not_yours = || JourneyError::NotYours {
        application_id: id.to_owned(),
    };
    let token = session::token(&headers);
    let Some(pending) = token.and_then(|t| journey.signing_in(t, now)) else {
        // The callback again (back button, reload) after signing in.
        return if token.is_some_and(|t| journey.held_by(t, now)) {
            Ok(to_overview(id))
        } else {
            Err(not_yours())
        };
    };
    if !bool::from(subtle::ConstantTimeEq::ct_eq(
        pending.state.as_bytes(),
        returned.as_bytes(),
    )) {
        return Err(not_yours());
    }
    let sign_in_failed = |why: String| JourneyError::SignIn {
        application_id: id.to_owned(),
        why,
    };
    match q.error.as_deref() {
        None => {}
        Some("access_denied") => {
            return Err(JourneyError::ConsentDeclined {
                application_id: id.to_owned(),
            });
        }
        Some(error) => {
            return Err(sign_in_failed(format!(
                "{error}: {}",
                q.error_description.unwrap_or_default()
            )));
        }
    }
    let code = q
        .code
        .ok_or_else(|| sign_in_failed("no code returned".into()))?;
    let applicant = rp
        .finish(&code, pending)
        .await
        .map_err(|e| sign_in_failed(e.to_string()))?;
    // The application is for the person the partner named; anyone else
    // leaves the link free for them (`Journey::sign_in_refused`).
    let application = state
        .lending
        .application_any_owner(&application_id)
        .await?
        .ok_or(JourneyError::NoJourney)?;
    if let Err(why) = applicant.may_apply(
        application.applicant.email.as_deref(),
        &application.company_number,
    ) {
        let mut writes = WriteSet::default();
        writes.push(LendingWrite::UpdateJourney(journey.sign_in_refused()));
        return match state.flows.commit(writes).await {
            Ok(()) | Err(CommitError::Conflict) => Err(JourneyError::NotTheApplicant {
                signed_in_as: applicant.email,
                other_company: why == NotTheApplicant::OtherCompany,
            }),
            Err(e) => Err(JourneyError::Unavailable(e.to_string())),
        };
    }
    let next = journey
        .signed_in(applicant, now)
        .ok_or_else(|| JourneyError::Conflict {
            application_id: id.to_owned(),
            why: "it was started by someone else; sign in with the account that started it".into(),
        })?;
    let mut writes = WriteSet::default();
    writes.push(LendingWrite::UpdateJourney(next));
    match state.flows.commit(writes).await {
        Ok(()) => Ok(to_overview(id)),
        Err(CommitError::Conflict) => Err(not_yours()),
        Err(e) => Err(JourneyError::Unavailable(e.to_string())),
    }
}
