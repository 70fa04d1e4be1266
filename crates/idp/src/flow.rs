//! The sign-in transaction between `/authorize` and the redirect back to the
//! client: its ticket (lapses 120 s after `/authorize`), the browser it is
//! bound to, consent, and finally the authorization code.

use axum::http::HeaderMap;
use axum::response::Response;
use lendhub_domain::identity::claims::{CODE_TTL_MS, IdentityScopes};
use lendhub_store::{AuthCodeRecord, CodeIssue, ConsentRecord, TicketRecord};
use lendhub_system::generate_access_token;
use subtle::ConstantTimeEq;

use crate::cookies;
use crate::error::PageError;
use crate::redirect;
use crate::session::csrf_valid;
use crate::state::IdpState;

/// A fresh `/authorize` for the same request as `ticket`, for a person whose
/// sign-in lapsed: the client's `state`, `nonce` and PKCE challenge are
/// unchanged, so the client can still complete its original request.
pub fn restart_url(ticket: &TicketRecord) -> String {
    let mut pairs = vec![
        ("response_type", "code".to_owned()),
        ("client_id", ticket.client_id.clone()),
        ("redirect_uri", ticket.redirect_uri.clone()),
        ("scope", ticket.scope.clone()),
        ("state", ticket.state.clone()),
        ("code_challenge", ticket.code_challenge.clone()),
        ("code_challenge_method", "S256".to_owned()),
    ];
    let optional = [
        ("nonce", ticket.nonce.clone()),
        ("prompt", ticket.prompt.clone()),
        ("max_age", ticket.max_age.map(|a| a.to_string())),
        ("login_hint", ticket.login_hint.clone()),
    ];
    for (name, value) in optional {
        if let Some(v) = value {
            pairs.push((name, v));
        }
    }
    redirect::with_query("/authorize", &pairs)
}

/// The ticket, if it exists and has not lapsed by the service clock.
pub async fn live_ticket(
    state: &IdpState,
    ticket_id: Option<&str>,
) -> Result<TicketRecord, PageError> {
    let expired = |restart| PageError::TicketExpired { restart };
    let Some(ticket_id) = ticket_id.filter(|t| !t.is_empty() && t.len() <= 64) else {
        return Err(expired(None));
    };
    let Some(ticket) = state.sign_ins.ticket(ticket_id).await? else {
        return Err(expired(None));
    };
    if state.clock.now_ms() >= ticket.expires_at_ms {
        return Err(expired(Some(restart_url(&ticket))));
    }
    Ok(ticket)
}

/// The browser id, if this request comes from the browser the ticket was
/// started in.
pub fn same_browser<'h>(headers: &'h HeaderMap, ticket: &TicketRecord) -> Option<&'h str> {
    let browser = cookies::get(headers, cookies::BROWSER)?;
    let matches: bool = cookies::browser_hash(browser)
        .as_slice()
        .ct_eq(&ticket.browser_hash)
        .into();
    matches.then_some(browser)
}

/// A form post about `ticket` must come from its browser and carry the
/// CSRF token that browser was shown.
pub fn check_form(
    state: &IdpState,
    headers: &HeaderMap,
    ticket: &TicketRecord,
    csrf_token: Option<&str>,
) -> Result<(), PageError> {
    let refused = || PageError::CsrfInvalid {
        restart: Some(restart_url(ticket)),
    };
    let browser = same_browser(headers, ticket).ok_or_else(refused)?;
    let token = csrf_token.filter(|t| !t.is_empty()).ok_or_else(refused)?;
    if csrf_valid(state, &ticket.ticket_id, browser, token) {
        Ok(())
    } else {
        Err(refused())
    }
}

/// Whether `user_id` has already approved every scope of `scopes` for `client_id`.
pub async fn consented(
    state: &IdpState,
    user_id: &str,
    client_id: &str,
    scopes: &str,
) -> Result<bool, PageError> {
    let given = state.sign_ins.consent(user_id, client_id).await?;
    Ok(given.is_some_and(|c| lendhub_store::scope_within(scopes, &c.scope)))
}

/// The consent record after approving `scopes`: what was approved before,
/// and these.
pub async fn widened_consent(
    state: &IdpState,
    user_id: &str,
    client_id: &str,
    scopes: &str,
) -> Result<ConsentRecord, PageError> {
    let before = state
        .sign_ins
        .consent(user_id, client_id)
        .await?
        .map(|c| c.scope)
        .unwrap_or_default();
    let union = IdentityScopes::parse(&format!("{before} {scopes}")).unwrap_or_default();
    Ok(ConsentRecord {
        user_id: user_id.to_owned(),
        client_id: client_id.to_owned(),
        scope: union.render(),
        granted_at_ms: state.clock.now_ms(),
    })
}

/// What a code is issued for.
pub struct Authorization {
    pub client_id: String,
    pub redirect_uri: String,
    pub scope: String,
    pub state: String,
    pub nonce: Option<String>,
    pub code_challenge: String,
    pub user_id: String,
    pub auth_time_ms: i64,
    pub session_selector: Option<Vec<u8>>,
}

impl Authorization {
    pub fn from_ticket(ticket: &TicketRecord, user_id: String, auth_time_ms: i64) -> Self {
        Self {
            client_id: ticket.client_id.clone(),
            redirect_uri: ticket.redirect_uri.clone(),
            scope: ticket.scope.clone(),
            state: ticket.state.clone(),
            nonce: ticket.nonce.clone(),
            code_challenge: ticket.code_challenge.clone(),
            user_id,
            auth_time_ms,
            session_selector: ticket.session_selector.clone(),
        }
    }
}

/// Issues the code and sends the browser back to the client with it. With a
/// ticket, the ticket is spent in the same transaction: a form submitted
/// twice yields one code.
pub async fn complete(
    state: &IdpState,
    a: Authorization,
    ticket: Option<&TicketRecord>,
    consent: Option<ConsentRecord>,
) -> Result<Response, PageError> {
    let now = state.clock.now_ms();
    let code = generate_access_token(now);
    let record = AuthCodeRecord {
        selector: code.selector.to_vec(),
        verifier_hash: code.verifier_hash.to_vec(),
        client_id: a.client_id,
        redirect_uri: a.redirect_uri.clone(),
        code_challenge: a.code_challenge,
        user_id: a.user_id,
        scope: a.scope,
        nonce: a.nonce,
        auth_time_ms: a.auth_time_ms,
        session_selector: a.session_selector,
        created_at_ms: now,
        expires_at_ms: now + CODE_TTL_MS,
    };
    let issued = state
        .sign_ins
        .issue_code(CodeIssue {
            code: record,
            ticket_id: ticket.map(|t| t.ticket_id.clone()),
            consent,
        })
        .await?;
    if !issued {
        return Err(PageError::TicketExpired {
            restart: ticket.map(restart_url),
        });
    }
    Ok(redirect::to_client(
        &a.redirect_uri,
        &[
            ("code", code.token),
            ("state", a.state),
            ("iss", state.urls.issuer.clone()),
        ],
    ))
}
