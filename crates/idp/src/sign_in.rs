//! `GET /sign-in` and `POST /sign-in`: the email-and-password page of a
//! sign-in transaction. A good password opens a browser session; then the
//! person goes on to the consent page, or straight back to the client if
//! they approved these scopes for it before.

use axum::body::Bytes;
use std::net::IpAddr;

use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use lendhub_domain::identity::claims::{Prompt, normalise_email};
use lendhub_http::oauth_form;
use lendhub_system::random_token;
use serde::Deserialize;

use crate::cookies;
use crate::error::PageError;
use crate::flow::{
    Authorization, check_form, complete, consented, live_ticket, restart_url, same_browser,
};
use crate::pages::{SignIn, render};
use crate::redirect;
use crate::session::{self, csrf_token};
use crate::state::IdpState;
use crate::throttle::Wait;
use crate::users::{hash_password, verify_password};

#[derive(Deserialize)]
pub struct TicketQuery {
    ticket: Option<String>,
}

async fn client_name(state: &IdpState, client_id: &str) -> Result<String, PageError> {
    Ok(state
        .directory
        .sso_client(client_id)
        .await?
        .ok_or(PageError::UnknownClient)?
        .name)
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
    let name = client_name(&state, &ticket.client_id).await?;
    Ok(render(
        StatusCode::OK,
        &SignIn {
            client_name: &name,
            ticket: &ticket.ticket_id,
            csrf_token: &csrf_token(&state, &ticket.ticket_id, browser),
            email: ticket.login_hint.as_deref().unwrap_or(""),
            error: None,
        },
    ))
}

/// Verifies `password` for `email` off the async workers. An unknown email
/// is checked against a decoy hash, so it takes as long as a wrong password.
async fn check_password(
    state: &IdpState,
    email: &str,
    password: String,
) -> Result<Option<lendhub_store::SsoUserRecord>, PageError> {
    let user = state
        .directory
        .sso_user_by_email(&normalise_email(email))
        .await?;
    let hash = match &user {
        Some(u) => u.password_hash.clone(),
        None => state
            .decoy_hash
            .get_or_try_init(|| async {
                tokio::task::spawn_blocking(|| hash_password(&random_token(16)))
                    .await
                    .map_err(|e| PageError::Internal(e.to_string()))?
                    .map_err(|e| PageError::Internal(e.to_string()))
            })
            .await?
            .clone(),
    };
    let good = tokio::task::spawn_blocking(move || verify_password(&hash, &password))
        .await
        .map_err(|e| PageError::Internal(e.to_string()))?;
    Ok(user.filter(|_| good))
}

/// Where a sign-in comes from, for the throttle.
pub struct ClientAddress(pub Option<IpAddr>);

impl FromRequestParts<IdpState> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &IdpState,
    ) -> Result<Self, Self::Rejection> {
        Ok(Self(lendhub_http::client_ip::client_ip(
            parts,
            &state.trusted_proxies,
        )))
    }
}

pub async fn submit(
    State(state): State<IdpState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    let mut form = oauth_form::parse(
        &headers,
        &body,
        &["ticket", "csrf_token", "email", "password"],
    )
    .unwrap_or_default();
    let ticket = live_ticket(&state, form.get("ticket").map(String::as_str)).await?;
    check_form(
        &state,
        &headers,
        &ticket,
        form.get("csrf_token").map(String::as_str),
    )?;
    let email = form.remove("email").unwrap_or_default();
    let password = form.remove("password").unwrap_or_default();
    let refuse = |status: StatusCode, error: String| {
        let (state, headers, ticket, email) = (&state, &headers, &ticket, &email);
        async move {
            let name = client_name(state, &ticket.client_id).await?;
            let browser = same_browser(headers, ticket).unwrap_or_default();
            Ok::<_, PageError>(render(
                status,
                &SignIn {
                    client_name: &name,
                    ticket: &ticket.ticket_id,
                    csrf_token: &csrf_token(state, &ticket.ticket_id, browser),
                    email,
                    error: Some(&error),
                },
            ))
        }
    };
    // Throttled before the password is even looked at, with the same words
    // whether the account exists or not.
    let attempt = match state.sign_in_throttle.attempt(
        &normalise_email(&email),
        address,
        state.clock.now_ms(),
    ) {
        Ok(attempt) => attempt,
        Err(wait_ms) => {
            let wait = Wait::new(wait_ms);
            let message = wait.message("Too many sign-in attempts.");
            let page = refuse(StatusCode::TOO_MANY_REQUESTS, message).await?;
            return Ok(wait.stamp(page));
        }
    };
    let Some(user) = check_password(&state, &email, password).await? else {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "Enter a correct email address and password.".to_owned(),
        )
        .await;
    };
    state.sign_in_throttle.succeeded(attempt);

    let now = state.clock.now_ms();
    let (cookie, record) = session::open(&user.user_id, now);
    let selector = record.selector.clone();
    if !state.sign_ins.sign_in(&ticket.ticket_id, record).await? {
        return Err(PageError::TicketExpired {
            restart: Some(restart_url(&ticket)),
        });
    }
    let prompt = Prompt::parse(ticket.prompt.as_deref()).unwrap_or_default();
    let agreed = !prompt.consent
        && consented(&state, &user.user_id, &ticket.client_id, &ticket.scope).await?;
    let mut response = if agreed {
        let mut authorization = Authorization::from_ticket(&ticket, user.user_id.clone(), now);
        authorization.session_selector = Some(selector);
        complete(&state, authorization, Some(&ticket), None).await?
    } else {
        redirect::to_page("/consent", &[("ticket", ticket.ticket_id.clone())])
    };
    if let Some(cookie) = cookies::set(cookies::SESSION, &cookie, state.urls.secure()) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    Ok(response)
}
