//! What goes wrong on the hosted journey, as pages: an applicant sees a
//! plain explanation and what to do next, never a stack trace or JSON.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use lendhub_store::StoreError;

use super::pages::{Problem, render};
use crate::flows::FlowError;

#[derive(Debug)]
pub enum JourneyError {
    /// The REST tier is switched off, or sign-in is not configured.
    NotAvailable,
    /// The link is not one of ours (altered, truncated, or made up).
    LinkInvalid,
    /// The handoff link was used already, in another browser; `resumable`
    /// once someone signed in there.
    LinkUsed {
        application_id: String,
        resumable: bool,
    },
    /// The application was completed through the partner's own screens.
    Completed,
    /// A sign-in is under way where the link was first opened, and nobody
    /// has signed in yet: only that browser may go on.
    SignInElsewhere,
    /// The applicant chose not to share their details at the provider.
    ConsentDeclined {
        application_id: String,
    },
    /// The page belongs to a journey this browser does not hold.
    NotYours {
        application_id: String,
    },
    /// Whoever signed in is not the person the application is for
    /// (`Applicant::may_apply`); `signed_in_as` is their own e-mail.
    NotTheApplicant {
        signed_in_as: String,
        other_company: bool,
    },
    /// No journey was ever started for this application.
    NoJourney,
    /// No such document, or no agreement signed yet.
    NoDocument,
    /// The application can no longer be completed.
    Closed(&'static str),
    /// The identity provider refused or could not be asked.
    SignIn {
        application_id: String,
        why: String,
    },
    /// A form was posted from elsewhere, or from a page left open too long.
    StaleForm {
        application_id: String,
    },
    /// The store or a counterparty could not be reached: worth retrying.
    Unavailable(String),
    /// The application moved on meanwhile (another tab, the partner).
    Conflict {
        application_id: String,
        why: String,
    },
    Internal(String),
}

impl From<StoreError> for JourneyError {
    fn from(e: StoreError) -> Self {
        JourneyError::Unavailable(e.to_string())
    }
}

impl JourneyError {
    /// A shared step's failure, for the application's pages.
    pub fn from_flow(application_id: &str, e: FlowError) -> Self {
        match e {
            FlowError::Unavailable(why) => JourneyError::Unavailable(why),
            FlowError::Conflict(why) => JourneyError::Conflict {
                application_id: application_id.to_owned(),
                why: why.to_owned(),
            },
            FlowError::DecisionLocked => JourneyError::Conflict {
                application_id: application_id.to_owned(),
                why: "the offer was already accepted and signed".to_owned(),
            },
            other => JourneyError::Internal(other.to_string()),
        }
    }
}

impl IntoResponse for JourneyError {
    fn into_response(self) -> Response {
        let resume = |id: &str| Some(format!("/apply/{id}/resume"));
        let continue_at = |id: &str| Some(format!("/apply/{id}"));
        let (status, title, message, link, code) = match &self {
            JourneyError::NotAvailable => (
                StatusCode::SERVICE_UNAVAILABLE,
                "Applications are not open",
                "Online applications are not available at the moment. Please try again later."
                    .to_owned(),
                None,
                "journey_unavailable",
            ),
            JourneyError::LinkInvalid => (
                StatusCode::NOT_FOUND,
                "This link does not work",
                "The link may have been copied incompletely. Go back to the service you \
                 started from and follow its link again."
                    .to_owned(),
                None,
                "link_invalid",
            ),
            JourneyError::LinkUsed {
                application_id,
                resumable,
            } => (
                StatusCode::CONFLICT,
                "This link has already been used",
                if *resumable {
                    "Each application link works once. If you started this application, you \
                     can continue it by signing in again with the same account."
                } else {
                    "Each application link works once. Continue in the browser where you \
                     first opened it."
                }
                .to_owned(),
                if *resumable {
                    resume(application_id)
                } else {
                    None
                },
                "link_used",
            ),
            JourneyError::Completed => (
                StatusCode::CONFLICT,
                "This application is already complete",
                "It was finished in the service you are applying through; there is \
                 nothing more to do here."
                    .to_owned(),
                None,
                "application_complete",
            ),
            JourneyError::SignInElsewhere => (
                StatusCode::CONFLICT,
                "Finish signing in where you started",
                "Signing in to this application is under way in the browser where its \
                 link was first opened. Finish it there."
                    .to_owned(),
                None,
                "sign_in_elsewhere",
            ),
            JourneyError::ConsentDeclined { application_id } => (
                StatusCode::FORBIDDEN,
                "You chose not to share your details",
                "We need your name and e-mail address from your lendhub account to \
                 continue. You can sign in again and allow it."
                    .to_owned(),
                resume(application_id),
                "consent_declined",
            ),
            JourneyError::NotYours { application_id } => (
                StatusCode::FORBIDDEN,
                "Sign in to continue",
                "This application is open in another browser, or you were away for a \
                 while. Sign in again with the account you started it with to continue."
                    .to_owned(),
                resume(application_id),
                "session_required",
            ),
            JourneyError::NotTheApplicant {
                signed_in_as,
                other_company,
            } => (
                StatusCode::FORBIDDEN,
                "This application is for someone else",
                format!(
                    "You signed in as {signed_in_as}, but the service you are applying \
                     through made this application for {whom}. Nothing was changed. If \
                     it is yours, sign out of your lendhub account and open the link \
                     again, signing in with {with}; otherwise pass the link to them.",
                    whom = if *other_company {
                        "a person of another company"
                    } else {
                        "another person"
                    },
                    with = if *other_company {
                        "the account of a director of that company"
                    } else {
                        "the e-mail address they gave for you"
                    },
                ),
                None,
                "not_the_applicant",
            ),
            JourneyError::NoJourney => (
                StatusCode::NOT_FOUND,
                "Application not found",
                "Open the link the service you are applying through gave you.".to_owned(),
                None,
                "not_found",
            ),
            JourneyError::NoDocument => (
                StatusCode::NOT_FOUND,
                "Document not found",
                "There is no such document, or nothing has been signed yet.".to_owned(),
                None,
                "not_found",
            ),
            JourneyError::Closed(why) => (
                StatusCode::GONE,
                "This application is closed",
                format!("{why} To borrow, start a new application from the service you came from."),
                None,
                "application_closed",
            ),
            JourneyError::SignIn {
                application_id,
                why,
            } => {
                tracing::warn!(application = %application_id, %why, "journey sign-in failed");
                (
                    StatusCode::BAD_GATEWAY,
                    "We could not sign you in",
                    "Signing in did not finish. Please try again.".to_owned(),
                    resume(application_id),
                    "sign_in_failed",
                )
            }
            JourneyError::StaleForm { application_id } => (
                StatusCode::FORBIDDEN,
                "Please try that again",
                "The form was out of date. Nothing was changed.".to_owned(),
                continue_at(application_id),
                "form_expired",
            ),
            JourneyError::Unavailable(why) => {
                tracing::warn!(%why, "journey page unavailable");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Sorry, there is a problem",
                    "We could not finish that just now. Nothing was lost: please try again \
                     in a moment."
                        .to_owned(),
                    None,
                    "service_unavailable",
                )
            }
            JourneyError::Conflict {
                application_id,
                why,
            } => (
                StatusCode::CONFLICT,
                "Your application has moved on",
                format!("That step could not be taken: {why}."),
                continue_at(application_id),
                "conflict",
            ),
            JourneyError::Internal(why) => {
                tracing::error!(%why, "journey page failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Sorry, there is a problem",
                    "Something went wrong on our side. Please try again later.".to_owned(),
                    None,
                    "internal_error",
                )
            }
        };
        render(
            status,
            &Problem {
                title,
                message: &message,
                link: link.as_deref(),
                code,
            },
        )
    }
}
