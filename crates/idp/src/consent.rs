//! `GET /consent` and `POST /consent`: the person sees, in plain words, what
//! the client asks to see, and allows it (a code goes back to the client) or
//! not (`access_denied` goes back instead).

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use lendhub_domain::identity::claims::IdentityScopes;
use lendhub_domain::partner::scope::Scope;
use lendhub_http::oauth_form;
use serde::Deserialize;

use crate::error::{AuthorizeErrorCode, IdpError, PageError, RedirectError};
use crate::flow::{
    Authorization, check_form, complete, live_ticket, restart_url, same_browser, widened_consent,
};
use crate::pages::{Consent, render};
use crate::redirect;
use crate::session::csrf_token;
use crate::state::IdpState;

#[derive(Deserialize)]
pub struct TicketQuery {
    ticket: Option<String>,
}

pub async fn show(
    State(state): State<IdpState>,
    headers: HeaderMap,
    Query(q): Query<TicketQuery>,
) -> Result<Response, PageError> {
    let ticket = live_ticket(&state, q.ticket.as_deref()).await?;
    let browser = same_browser(&headers, &ticket).ok_or_else(|| PageError::CsrfInvalid {
        restart: Some(restart_url(&ticket)),
    })?;
    let Some(user_id) = &ticket.user_id else {
        return Ok(redirect::to_page(
            "/sign-in",
            &[("ticket", ticket.ticket_id.clone())],
        ));
    };
    let user =
        state
            .directory
            .sso_user(user_id)
            .await?
            .ok_or_else(|| PageError::TicketExpired {
                restart: Some(restart_url(&ticket)),
            })?;
    let client = state
        .directory
        .sso_client(&ticket.client_id)
        .await?
        .ok_or(PageError::UnknownClient)?;
    let scopes = IdentityScopes::parse(&ticket.scope)
        .unwrap_or_default()
        .iter()
        .map(|s| (s.as_str(), s.describe()))
        .collect();
    Ok(render(
        StatusCode::OK,
        &Consent {
            client_name: &client.name,
            email: &user.email,
            scopes,
            ticket: &ticket.ticket_id,
            csrf_token: &csrf_token(&state, &ticket.ticket_id, browser),
        },
    ))
}

pub async fn submit(
    State(state): State<IdpState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, IdpError> {
    let form = oauth_form::parse(&headers, &body, &["ticket", "csrf_token", "decision"])
        .unwrap_or_default();
    let ticket = live_ticket(&state, form.get("ticket").map(String::as_str)).await?;
    check_form(
        &state,
        &headers,
        &ticket,
        form.get("csrf_token").map(String::as_str),
    )?;
    let (Some(user_id), Some(auth_time_ms)) = (ticket.user_id.clone(), ticket.auth_time_ms) else {
        return Ok(redirect::to_page(
            "/sign-in",
            &[("ticket", ticket.ticket_id.clone())],
        ));
    };
    // Only an explicit approval grants anything.
    if form.get("decision").map(String::as_str) == Some("approve") {
        let consent = widened_consent(&state, &user_id, &ticket.client_id, &ticket.scope).await?;
        let authorization = Authorization::from_ticket(&ticket, user_id, auth_time_ms);
        return Ok(complete(&state, authorization, Some(&ticket), Some(consent)).await?);
    }
    if !state
        .sign_ins
        .cancel_ticket(&ticket.ticket_id)
        .await
        .map_err(PageError::from)?
    {
        return Err(PageError::TicketExpired {
            restart: Some(restart_url(&ticket)),
        }
        .into());
    }
    Err(IdpError::Redirect(RedirectError {
        redirect_uri: ticket.redirect_uri,
        state: Some(ticket.state),
        issuer: state.urls.issuer.clone(),
        code: AuthorizeErrorCode::AccessDenied,
        description: "the person did not allow access".into(),
    }))
}
