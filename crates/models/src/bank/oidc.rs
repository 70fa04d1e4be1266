//! The bank's authorisation server: discovery, the token endpoint
//! (client credentials, and authorization codes from the consent page),
//! and who a request is from.
//!
//! Clients authenticate with `client_secret_basic`. The request object the
//! client sends to `/authorize` and the ID token the bank returns are
//! signed HS256 with the client secret, as OpenID Connect allows for a
//! client holding a secret; the standard's security profile prefers PS256
//! with registered keys, which a real bank's adapter configuration adds.

use std::time::Duration;

use axum::Form;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::OffsetDateTime;

use super::Bank;
use crate::credentials;

/// How long a token and a code live.
pub(super) const TOKEN_LIFE: Duration = Duration::from_secs(3600);
const CODE_LIFE: Duration = Duration::from_secs(60);

/// What a token lets its bearer do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Grant {
    /// The client's own: create consents.
    Client {
        scope: String,
        #[serde(with = "time::serde::rfc3339")]
        expires: OffsetDateTime,
    },
    /// The payer's consent: read what it permits.
    Consent {
        consent_id: String,
        #[serde(with = "time::serde::rfc3339")]
        expires: OffsetDateTime,
    },
}

/// An authorization code: the consent the payer approved, and what the
/// exchange must repeat.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Code {
    pub consent_id: String,
    pub redirect_uri: String,
    pub nonce: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub expires: OffsetDateTime,
}

pub(super) async fn discovery(State(bank): State<Bank>) -> Json<serde_json::Value> {
    let base = &bank.base;
    Json(json!({
        "issuer": base.as_ref(),
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "jwks_uri": format!("{base}/jwks"),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["client_credentials", "authorization_code", "refresh_token"],
        "scopes_supported": ["openid", "accounts", "payments"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        "request_object_signing_alg_values_supported": ["HS256"],
        "id_token_signing_alg_values_supported": ["HS256"],
        "subject_types_supported": ["public"],
        "claims_supported": ["openbanking_intent_id", "sub", "nonce"],
        "request_parameter_supported": true,
    }))
}

/// The client, if `headers` carry its credentials as HTTP basic.
pub(super) fn is_client(bank: &Bank, headers: &HeaderMap) -> bool {
    let registration = &bank.registration;
    credentials::basic(headers).is_some_and(|(id, secret)| {
        credentials::same(&id, &registration.client_id)
            & credentials::same(&secret, &registration.client_secret)
    })
}

/// The admin endpoints take the client's credentials.
pub(super) async fn client_only(
    State(bank): State<Bank>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if is_client(&bank, request.headers()) {
        next.run(request).await
    } else {
        oauth_error(StatusCode::UNAUTHORIZED, "invalid_client")
    }
}

/// The grant behind the bearer token in `headers`, if it is live.
pub(super) fn bearer(bank: &Bank, headers: &HeaderMap) -> Option<Grant> {
    let token = headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")?;
    // A read: the books need no writing for it.
    let grant = bank.books.lock().tokens.get(token.trim()).cloned()?;
    (bank.now() < grant.expires()).then_some(grant)
}

impl Grant {
    pub(super) fn expires(&self) -> OffsetDateTime {
        match self {
            Grant::Client { expires, .. } | Grant::Consent { expires, .. } => *expires,
        }
    }
}

fn oauth_error(status: StatusCode, code: &str) -> Response {
    (status, Json(json!({ "error": code }))).into_response()
}

#[derive(Deserialize)]
pub(super) struct TokenRequest {
    grant_type: String,
    scope: Option<String>,
    code: Option<String>,
    redirect_uri: Option<String>,
    refresh_token: Option<String>,
}

#[derive(Serialize)]
struct IdToken<'a> {
    iss: &'a str,
    sub: &'a str,
    aud: &'a str,
    iat: i64,
    exp: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    nonce: Option<&'a str>,
    openbanking_intent_id: &'a str,
}

pub(super) async fn token(
    State(bank): State<Bank>,
    headers: HeaderMap,
    Form(request): Form<TokenRequest>,
) -> Response {
    if !is_client(&bank, &headers) {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client");
    }
    let now = bank.now();
    let expires = now + TOKEN_LIFE;
    let access_token = lendhub_system::random_token(32);
    match request.grant_type.as_str() {
        "client_credentials" => {
            let scope = request.scope.unwrap_or_else(|| "accounts".to_owned());
            if !scope
                .split(' ')
                .all(|s| ["accounts", "payments"].contains(&s))
            {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_scope");
            }
            bank.books().tokens.insert(
                access_token.clone(),
                Grant::Client {
                    scope: scope.clone(),
                    expires,
                },
            );
            Json(json!({
                "access_token": access_token,
                "token_type": "Bearer",
                "expires_in": TOKEN_LIFE.as_secs(),
                "scope": scope,
            }))
            .into_response()
        }
        "authorization_code" => {
            let code = {
                let mut books = bank.books();
                request.code.as_deref().and_then(|c| books.codes.remove(c))
            };
            let Some(code) = code.filter(|c| {
                now < c.expires && request.redirect_uri.as_deref() == Some(c.redirect_uri.as_str())
            }) else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            };
            let registration = &bank.registration;
            let claims = IdToken {
                iss: &bank.base,
                sub: &code.consent_id,
                aud: &registration.client_id,
                iat: now.unix_timestamp(),
                exp: expires.unix_timestamp(),
                nonce: code.nonce.as_deref(),
                openbanking_intent_id: &code.consent_id,
            };
            let key = EncodingKey::from_secret(registration.client_secret.as_bytes());
            let Ok(id_token) = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &key)
            else {
                return oauth_error(StatusCode::INTERNAL_SERVER_ERROR, "server_error");
            };
            bank.books().tokens.insert(
                access_token.clone(),
                Grant::Consent {
                    consent_id: code.consent_id.clone(),
                    expires,
                },
            );
            let (scope, refresh_token) = {
                let mut books = bank.books();
                if books.vrp_consents.contains_key(&code.consent_id) {
                    // A VRP consent outlives the payer's session: its
                    // payments are made later with renewed tokens.
                    let refresh = lendhub_system::random_token(32);
                    books
                        .refresh_tokens
                        .insert(refresh.clone(), code.consent_id.clone());
                    ("openid payments", Some(refresh))
                } else if books.payment_consents.contains_key(&code.consent_id) {
                    ("openid payments", None)
                } else {
                    ("openid accounts", None)
                }
            };
            let mut answer = json!({
                "access_token": access_token,
                "token_type": "Bearer",
                "expires_in": TOKEN_LIFE.as_secs(),
                "id_token": id_token,
                "scope": scope,
            });
            if let Some(refresh) = refresh_token {
                answer["refresh_token"] = json!(refresh);
            }
            Json(answer).into_response()
        }
        "refresh_token" => {
            // The bank rotates refresh tokens (RFC 9700 §4.14.2): each is
            // good once, and the renewal carries the next. A client that
            // loses the renewal has lost the mandate's tokens.
            let refresh = lendhub_system::random_token(32);
            let renewed = {
                let mut books = bank.books();
                let consent_id = request
                    .refresh_token
                    .as_deref()
                    .and_then(|t| books.refresh_tokens.get(t))
                    .filter(|id| books.vrp_consents.get(*id).is_some_and(|c| !c.revoked))
                    .cloned();
                consent_id.inspect(|consent_id| {
                    if let Some(spent) = &request.refresh_token {
                        books.refresh_tokens.remove(spent);
                    }
                    books
                        .refresh_tokens
                        .insert(refresh.clone(), consent_id.clone());
                    books.tokens.insert(
                        access_token.clone(),
                        Grant::Consent {
                            consent_id: consent_id.clone(),
                            expires,
                        },
                    );
                })
            };
            if renewed.is_none() {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            }
            Json(json!({
                "access_token": access_token,
                "token_type": "Bearer",
                "expires_in": TOKEN_LIFE.as_secs(),
                "refresh_token": refresh,
                "scope": "openid payments",
            }))
            .into_response()
        }
        _ => oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type"),
    }
}

/// A new code for the consent the payer approved.
pub(super) fn issue_code(
    bank: &Bank,
    consent_id: &str,
    redirect_uri: &str,
    nonce: Option<String>,
) -> String {
    let code = lendhub_system::random_token(32);
    bank.books().codes.insert(
        code.clone(),
        Code {
            consent_id: consent_id.to_owned(),
            redirect_uri: redirect_uri.to_owned(),
            nonce,
            expires: bank.now() + CODE_LIFE,
        },
    );
    code
}
