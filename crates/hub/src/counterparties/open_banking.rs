//! The banks lendhub connects to over the UK Open Banking Read/Write API
//! (v3.1.11) and its security profile's OpenID Connect flows: each bank's
//! discovery document, its token endpoint (`client_secret_basic`), and the
//! headers every resource request carries, and the payer's authorisation
//! (a signed request object naming the consent; the code exchanged, its ID
//! token checked). Account information
//! ([`AccountInformation`](super::AccountInformation)) and payment
//! initiation ([`BankPayments`](super::BankPayments)) are built on this.

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use lendhub_domain::clock::Clock;
use lendhub_domain::secret::Secret;
use parking_lot::Mutex;
use reqwest::{RequestBuilder, Response, StatusCode};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::OffsetDateTime;

use super::hop;
use super::message_signing::BankKeys;
use super::{BankUnavailable, NotificationRefused};
use lendhub_domain::open_banking::events::Notification;

/// One bank as configured (`counterparties.<env>.open_banking.banks.<id>`).
#[derive(Clone, Debug)]
pub struct BankConnection {
    pub id: String,
    /// Shown on the journey's and the pay page's bank choice.
    pub name: String,
    /// The bank's `/.well-known/openid-configuration`.
    pub discovery_url: String,
    /// The standard's base, with `aisp/` and `pisp/` below it.
    pub api_base_url: String,
    pub client_id: String,
    pub client_secret: Secret<String>,
}

/// The discovery document's members lendhub reads.
#[derive(Clone, Debug, Deserialize)]
pub(super) struct Discovery {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    /// The keys the bank signs its answers with.
    #[serde(default)]
    pub jwks_uri: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct TokenAnswer {
    pub access_token: String,
    #[serde(default)]
    pub expires_in: Option<i64>,
    #[serde(default)]
    pub id_token: Option<String>,
    /// Issued with a consent that outlives the payer's visit (VRP).
    #[serde(default)]
    pub refresh_token: Option<String>,
}

/// What the payer's authorization code was exchanged for: their tokens,
/// and the consent the ID token says they authorised.
pub(super) struct Exchanged {
    pub tokens: TokenAnswer,
    pub consent_id: String,
}

/// A bank and what lendhub learnt of it: its endpoints, found once, and
/// its client-credentials tokens, one per scope, each reused until shortly
/// before it expires.
pub(super) struct Bank {
    pub connection: BankConnection,
    discovered: tokio::sync::OnceCell<Discovery>,
    keys: tokio::sync::OnceCell<BankKeys>,
    client_tokens: Mutex<std::collections::HashMap<String, (String, OffsetDateTime)>>,
}

/// The banks of one environment and how they are reached.
pub(super) struct Banks {
    pub banks: Vec<Bank>,
    pub http: reqwest::Client,
    pub clock: Arc<dyn Clock>,
    /// `{hub public_url}/open-banking/callback`: lendhub's redirect URI at
    /// every bank.
    pub redirect_uri: String,
}

/// A client-credentials token is renewed this long before it expires.
const RENEW_BEFORE_S: i64 = 60;

impl Banks {
    pub fn new(
        banks: Vec<BankConnection>,
        redirect_uri: String,
        timeout: Duration,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, reqwest::Error> {
        let http = super::http_client(timeout)?;
        Ok(Self {
            banks: banks
                .into_iter()
                .map(|connection| Bank {
                    connection,
                    discovered: tokio::sync::OnceCell::new(),
                    keys: tokio::sync::OnceCell::new(),
                    client_tokens: Mutex::default(),
                })
                .collect(),
            http,
            clock,
            redirect_uri,
        })
    }

    pub fn bank(&self, id: &str) -> Option<&Bank> {
        self.banks.iter().find(|b| b.connection.id == id)
    }

    /// Each bank as (id, name shown to payers).
    pub fn names(&self) -> Vec<(String, String)> {
        self.banks
            .iter()
            .map(|b| (b.connection.id.clone(), b.connection.name.clone()))
            .collect()
    }

    /// The origins of the banks' authorisation pages, for those it could
    /// discover: a page whose form sends the payer there must allow them.
    pub async fn authorisation_origins(&self) -> Vec<String> {
        let mut origins = Vec::new();
        for bank in &self.banks {
            let Ok(discovery) = self.discovery(bank).await else {
                continue;
            };
            if let Ok(url) = url::Url::parse(&discovery.authorization_endpoint) {
                origins.push(url.origin().ascii_serialization());
            }
        }
        origins
    }

    pub async fn discovery<'a>(&self, bank: &'a Bank) -> Result<&'a Discovery, BankUnavailable> {
        bank.discovered
            .get_or_try_init(|| async {
                let answer = hop::send(
                    hop::BANK,
                    "GET /.well-known/openid-configuration",
                    self.http.get(&bank.connection.discovery_url),
                )
                .await;
                read(&bank.connection, "its discovery document", answer).await
            })
            .await
    }

    /// The bank's signing keys, read once from its `jwks_uri`.
    async fn keys<'a>(&self, bank: &'a Bank) -> Result<&'a BankKeys, BankUnavailable> {
        bank.keys
            .get_or_try_init(|| async {
                let discovery = self.discovery(bank).await?;
                let c = &bank.connection;
                let unavailable =
                    |why: String| BankUnavailable(format!("{} ({}): {why}", c.name, c.id));
                let uri = discovery.jwks_uri.as_deref().ok_or_else(|| {
                    unavailable("its discovery document names no jwks_uri".to_owned())
                })?;
                let answer = hop::send(hop::BANK, "GET jwks_uri", self.http.get(uri))
                    .await
                    .map_err(|e| unavailable(format!("did not answer for its JWKS: {e}")))?;
                if !answer.status().is_success() {
                    return Err(unavailable(format!(
                        "answered {} for its JWKS",
                        answer.status()
                    )));
                }
                let body = answer
                    .bytes()
                    .await
                    .map_err(|e| unavailable(format!("sent no JWKS: {e}")))?;
                BankKeys::parse(&body).map_err(|e| unavailable(e.0))
            })
            .await
    }

    /// `read`, for an answer the bank signs (`x-jws-signature`): refused as
    /// the bank unavailable unless the signature is the bank's over the
    /// body as it came.
    pub async fn read_signed<T: DeserializeOwned>(
        &self,
        bank: &Bank,
        what: &str,
        answer: Result<Response, reqwest::Error>,
    ) -> Result<T, BankUnavailable> {
        let c = &bank.connection;
        let unavailable = |why: String| BankUnavailable(format!("{} ({}): {why}", c.name, c.id));
        let response =
            answer.map_err(|e| unavailable(format!("did not answer for {what}: {e}")))?;
        let status = response.status();
        if !status.is_success() {
            return Err(unavailable(format!("answered {status} for {what}")));
        }
        let signature = response
            .headers()
            .get("x-jws-signature")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response
            .bytes()
            .await
            .map_err(|e| unavailable(format!("sent no {what}: {e}")))?;
        let keys = self.keys(bank).await?;
        if !signature.is_some_and(|s| keys.verify(&s, &body)) {
            return Err(unavailable(format!("{what} is not signed with its key")));
        }
        serde_json::from_slice(&body).map_err(|e| unavailable(format!("answered no {what}: {e}")))
    }

    /// The event notification `token` (a Security Event Token,
    /// `application/jwt`) if `bank` signed it (PS256, a key of its JWKS)
    /// for lendhub: issued by the bank's `issuer`, to lendhub's
    /// `client_id`. It carries no expiry: what it says is only that a
    /// resource changed, which lendhub reads from the bank anyway, so an
    /// old or repeated one does no harm.
    pub async fn notification(
        &self,
        bank: &Bank,
        token: &str,
    ) -> Result<Notification, NotificationRefused> {
        let refused = |why: &str| NotificationRefused::Invalid(why.to_owned());
        let header = jsonwebtoken::decode_header(token).map_err(|_| refused("not a JWS"))?;
        if header.alg != Algorithm::PS256 {
            return Err(refused("not signed PS256"));
        }
        let kid = header.kid.ok_or_else(|| refused("no kid"))?;
        let keys = self.keys(bank).await?;
        let key = keys
            .key(&kid)
            .ok_or_else(|| refused("signed with a key the bank does not publish"))?;
        let discovery = self.discovery(bank).await?;
        let mut validation = Validation::new(Algorithm::PS256);
        validation.required_spec_claims = ["iss", "aud", "sub"].map(str::to_owned).into();
        validation.validate_exp = false;
        validation.set_issuer(&[&discovery.issuer]);
        validation.set_audience(&[&bank.connection.client_id]);
        jsonwebtoken::decode::<Notification>(token, key, &validation)
            .map(|data| data.claims)
            .map_err(|e| NotificationRefused::Invalid(e.to_string()))
    }

    /// The token endpoint's answer to `form`, the client authenticating
    /// with its secret.
    pub async fn token(
        &self,
        bank: &Bank,
        form: &[(&str, &str)],
    ) -> Result<TokenAnswer, BankUnavailable> {
        let answer = self.ask_token(bank, form).await?;
        read(&bank.connection, "a token", answer).await
    }

    /// The token endpoint's answer to `form`, as it came: a caller that
    /// tells a refused grant from an outage reads the status first.
    pub async fn ask_token(
        &self,
        bank: &Bank,
        form: &[(&str, &str)],
    ) -> Result<Result<Response, reqwest::Error>, BankUnavailable> {
        let discovery = self.discovery(bank).await?;
        let c = &bank.connection;
        let grant = form
            .iter()
            .find_map(|(k, v)| (*k == "grant_type").then_some(*v))
            .unwrap_or_default();
        let request = self
            .http
            .post(&discovery.token_endpoint)
            .basic_auth(&c.client_id, Some(c.client_secret.expose()))
            .form(form);
        Ok(hop::send(
            hop::BANK,
            &format!("POST token_endpoint ({grant})"),
            request,
        )
        .await)
    }

    /// The client's own token for `scope` (`accounts`, `payments`).
    pub async fn client_token(&self, bank: &Bank, scope: &str) -> Result<String, BankUnavailable> {
        let now = self.clock.now();
        if let Some((token, until)) = bank.client_tokens.lock().get(scope).cloned()
            && now < until
        {
            return Ok(token);
        }
        let answer = self
            .token(
                bank,
                &[("grant_type", "client_credentials"), ("scope", scope)],
            )
            .await?;
        let life = answer.expires_in.unwrap_or(0) - RENEW_BEFORE_S;
        if life > 0 {
            bank.client_tokens.lock().insert(
                scope.to_owned(),
                (
                    answer.access_token.clone(),
                    now + time::Duration::seconds(life),
                ),
            );
        }
        Ok(answer.access_token)
    }
}

/// How long the request object is good for.
const REQUEST_LIFE: time::Duration = time::Duration::minutes(10);

#[derive(Serialize)]
struct RequestObject<'a> {
    iss: &'a str,
    aud: &'a str,
    iat: i64,
    exp: i64,
    response_type: &'static str,
    client_id: &'a str,
    redirect_uri: &'a str,
    scope: &'a str,
    state: &'a str,
    nonce: &'a str,
    claims: serde_json::Value,
}

#[derive(Deserialize)]
struct IdToken {
    nonce: Option<String>,
    openbanking_intent_id: String,
}

/// Why the payer's authorisation code gave no token.
pub(super) enum CodeRefused {
    /// Spent, expired, or its ID token does not match the request: the
    /// payer's consent does not hold.
    Consent,
    Unavailable(BankUnavailable),
}

impl From<BankUnavailable> for CodeRefused {
    fn from(e: BankUnavailable) -> Self {
        CodeRefused::Unavailable(e)
    }
}

impl Banks {
    /// Where to send the payer to authorise `consent_id` for `scope`
    /// (`openid accounts`, `openid payments`): the bank's authorization
    /// endpoint with a request object signed with the client's secret
    /// (HS256), carrying `state` and `nonce`.
    pub async fn authorise_url(
        &self,
        bank: &Bank,
        consent_id: &str,
        scope: &str,
        (state, nonce): (&str, &str),
    ) -> Result<String, BankUnavailable> {
        let discovery = self.discovery(bank).await?;
        let c = &bank.connection;
        let now = self.clock.now();
        let claims = RequestObject {
            iss: &c.client_id,
            aud: &discovery.issuer,
            iat: now.unix_timestamp(),
            exp: (now + REQUEST_LIFE).unix_timestamp(),
            response_type: "code",
            client_id: &c.client_id,
            redirect_uri: &self.redirect_uri,
            scope,
            state,
            nonce,
            claims: json!({ "id_token": {
                "openbanking_intent_id": { "value": consent_id, "essential": true },
                "acr": { "essential": true, "values": ["urn:openbanking:psd2:sca"] },
            }}),
        };
        let key = EncodingKey::from_secret(c.client_secret.expose().as_bytes());
        let request = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &key)
            .map_err(|e| BankUnavailable(format!("the request object would not sign: {e}")))?;
        let mut url = url::Url::parse(&discovery.authorization_endpoint).map_err(|e| {
            BankUnavailable(format!(
                "{}'s authorization endpoint is no URL: {e}",
                c.name
            ))
        })?;
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", &c.client_id)
            .append_pair("redirect_uri", &self.redirect_uri)
            .append_pair("scope", scope)
            .append_pair("state", state)
            .append_pair("nonce", nonce)
            .append_pair("request", &request);
        Ok(url.into())
    }

    /// The payer's token for the consent they authorised, from `code`, and
    /// the consent its ID token names (`openbanking_intent_id`), once the
    /// ID token is the bank's, for this client, with `nonce`.
    pub async fn exchange_code(
        &self,
        bank: &Bank,
        code: &str,
        nonce: &str,
    ) -> Result<Exchanged, CodeRefused> {
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", self.redirect_uri.as_str()),
        ];
        let exchanged = self.ask_token(bank, &form).await?;
        // A code the bank will not exchange (spent, expired: 400 or 401)
        // is the payer's consent not holding; anything else is the bank.
        if let Ok(r) = &exchanged
            && matches!(
                r.status(),
                StatusCode::BAD_REQUEST | StatusCode::UNAUTHORIZED
            )
        {
            return Err(CodeRefused::Consent);
        }
        let answer: TokenAnswer = read(&bank.connection, "a token", exchanged).await?;
        let discovery = self.discovery(bank).await?;
        let c = &bank.connection;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_audience(&[c.client_id.as_str()]);
        validation.set_issuer(&[discovery.issuer.as_str()]);
        let key = DecodingKey::from_secret(c.client_secret.expose().as_bytes());
        let id_token = answer
            .id_token
            .as_deref()
            .and_then(|t| jsonwebtoken::decode::<IdToken>(t, &key, &validation).ok())
            .filter(|t| t.claims.nonce.as_deref() == Some(nonce))
            .ok_or(CodeRefused::Consent)?;
        Ok(Exchanged {
            consent_id: id_token.claims.openbanking_intent_id,
            tokens: answer,
        })
    }

    /// New tokens for a consent from its refresh token (`form` carries the
    /// grant). Only `invalid_grant` is the consent not holding; the client
    /// refused (`invalid_client`: a rotated secret, say) is the bank
    /// unavailable to lendhub, not every payer's mandate ending.
    pub async fn refresh(
        &self,
        bank: &Bank,
        form: &[(&str, &str)],
    ) -> Result<TokenAnswer, CodeRefused> {
        let renewed = self.ask_token(bank, form).await?;
        let renewed = match renewed {
            Ok(r) if r.status() == StatusCode::BAD_REQUEST => {
                let error: serde_json::Value = r.json().await.unwrap_or_default();
                if error["error"] == "invalid_grant" {
                    return Err(CodeRefused::Consent);
                }
                return Err(CodeRefused::Unavailable(BankUnavailable(format!(
                    "{} refused to renew a token: {error}",
                    bank.connection.name
                ))));
            }
            other => other,
        };
        Ok(read(&bank.connection, "a token", renewed).await?)
    }
}

/// `request` with the headers the standard asks of every resource
/// request: the bearer token, and an RFC 4122 interaction id the bank
/// echoes for tracing.
pub(super) fn resource(request: RequestBuilder, token: &str) -> RequestBuilder {
    request
        .bearer_auth(token)
        .header("x-fapi-interaction-id", lendhub_system::random_uuid())
        .header(reqwest::header::ACCEPT, "application/json")
}

/// What a bank answered, as `T`: a network failure, a 429, a 5xx or an
/// answer that is not `T` is the bank unavailable; a 4xx is named.
pub(super) async fn read<T: DeserializeOwned>(
    bank: &BankConnection,
    what: &str,
    answer: Result<Response, reqwest::Error>,
) -> Result<T, BankUnavailable> {
    let unavailable = |why: String| BankUnavailable(format!("{} ({}): {why}", bank.name, bank.id));
    let response = answer.map_err(|e| unavailable(format!("did not answer for {what}: {e}")))?;
    let status = response.status();
    if !status.is_success() {
        return Err(unavailable(format!("answered {status} for {what}")));
    }
    response
        .json()
        .await
        .map_err(|e| unavailable(format!("answered no {what}: {e}")))
}

/// Whether `status` says the payer's consent no longer lets lendhub read:
/// revoked, expired or never authorised.
pub(super) fn consent_refused(status: StatusCode) -> bool {
    matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
}
