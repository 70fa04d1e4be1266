//! The journey's browser session: one random token in an `HttpOnly`,
//! `SameSite=Lax` cookie scoped to `/apply`, whose SHA-256 the journey keeps
//! (`Journey::held_by`), and the form token every POST carries (an HMAC of
//! that hash, so a form from another site or another browser fails).

use axum::http::{HeaderMap, HeaderValue};
use lendhub_domain::ids::{ApplicationId, HubId};
use lendhub_domain::lending::application::{Application, Status};
use lendhub_domain::lending::journey::Journey;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{CommitError, LendingWrite, WriteSet};
use time::OffsetDateTime;

use super::error::JourneyError;
use super::state::JourneyState;

pub const COOKIE: &str = "lendhub_apply";

/// The session token the request carries, if any.
pub fn token(headers: &HeaderMap) -> Option<&str> {
    lendhub_http::headers::cookie(headers, COOKIE)
}

/// The `Set-Cookie` value binding this browser to a journey. A session
/// cookie: closing the browser ends it (the journey can be resumed by
/// signing in again).
pub fn cookie(token: &str, secure: bool) -> Option<HeaderValue> {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{COOKIE}={token}; Path=/apply; HttpOnly; SameSite=Lax{secure}"
    ))
    .ok()
}

/// The token of the journey's forms.
pub fn form_token(state: &JourneyState, journey: &Journey) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(state.csrf_key.expose())
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(
        journey
            .session_hash
            .as_deref()
            .unwrap_or_default()
            .as_bytes(),
    );
    hex::encode(mac.finalize().into_bytes())
}

/// Now on the application owner's clock (moved by the test clock in test).
pub async fn now_for(state: &JourneyState, owner: &Tenant) -> Result<OffsetDateTime, JourneyError> {
    Ok(state.flows.now_for(owner).await?)
}

/// A page request of the journey of one application, from the browser that
/// holds it.
pub struct Visit {
    pub journey: Journey,
    pub application: Application,
    pub now: OffsetDateTime,
    /// The brand of the partner the application came through.
    pub brand: Option<crate::html::Brand>,
}

impl Visit {
    /// The journey of `application_id` if this browser holds it; an
    /// application that can no longer be completed is a closed page.
    pub async fn load(
        state: &JourneyState,
        headers: &HeaderMap,
        application_id: &str,
    ) -> Result<Self, JourneyError> {
        if !state.open {
            return Err(JourneyError::NotAvailable);
        }
        let id = ApplicationId::parse(application_id).ok_or(JourneyError::NoJourney)?;
        let journey = state
            .lending
            .journey(&id)
            .await?
            .ok_or(JourneyError::NoJourney)?;
        let now = now_for(state, &journey.owner).await?;
        let held = token(headers).is_some_and(|t| journey.held_by(t, now));
        if !held || journey.applicant.is_none() {
            return Err(JourneyError::NotYours {
                application_id: application_id.to_owned(),
            });
        }
        let application = state
            .lending
            .hub_application(&journey.owner, &id)
            .await?
            .ok_or(JourneyError::NoJourney)?;
        if let Some(why) = closed(&application, now) {
            return Err(JourneyError::Closed(why));
        }
        let brand = crate::flows::branding::of_owner(&state.flows, &application.owner)
            .await
            .map_err(|e| JourneyError::from_flow(application_id, e))?
            .map(|b| crate::html::Brand::of(&b));
        Ok(Self {
            journey,
            application,
            now,
            brand,
        })
    }

    /// Checks a posted form's token.
    pub fn check_form(&self, state: &JourneyState, presented: &str) -> Result<(), JourneyError> {
        use subtle::ConstantTimeEq;
        let expected = form_token(state, &self.journey);
        if bool::from(expected.as_bytes().ct_eq(presented.as_bytes())) {
            Ok(())
        } else {
            Err(JourneyError::StaleForm {
                application_id: self.application.id.to_string(),
            })
        }
    }

    /// Commits `writes` with the journey's next version; the delivery worker
    /// is woken for the events among them.
    pub async fn commit(
        &self,
        state: &JourneyState,
        next: Journey,
        mut writes: WriteSet,
    ) -> Result<(), JourneyError> {
        writes.push(LendingWrite::UpdateJourney(next));
        match state.flows.commit(writes).await {
            Ok(()) => Ok(()),
            Err(CommitError::Conflict) => Err(JourneyError::Conflict {
                application_id: self.application.id.to_string(),
                why: "it changed in another window meanwhile".into(),
            }),
            Err(e) => Err(JourneyError::Unavailable(e.to_string())),
        }
    }
}

/// Why an application's journey can no longer be followed at `now`, if
/// so; an open application past `expires_at` is closed before the sweep
/// has marked it.
pub fn closed(application: &Application, now: OffsetDateTime) -> Option<&'static str> {
    const EXPIRED: &str = "The application expired before it was finished.";
    match application.status {
        Status::Expired => Some(EXPIRED),
        Status::Created if application.expires_at <= now => Some(EXPIRED),
        Status::Withdrawn => Some("The application was withdrawn."),
        _ => None,
    }
}
