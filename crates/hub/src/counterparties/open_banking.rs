//! The banks lendhub connects to over the UK Open Banking Read/Write API
//! (v3.1.11) and its security profile's OpenID Connect flows: each bank's
//! discovery document, its token endpoint (`client_secret_basic`), and the
//! headers every resource request carries. The account information
//! service ([`AccountInformation`](super::AccountInformation)) is built on
//! this; payment initiation will be too.

use std::sync::Arc;
use std::time::Duration;

use lendhub_domain::clock::Clock;
use lendhub_domain::secret::Secret;
use parking_lot::Mutex;
use reqwest::{RequestBuilder, Response, StatusCode};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use time::OffsetDateTime;

use super::BankUnavailable;

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
}

#[derive(Deserialize)]
pub(super) struct TokenAnswer {
    pub access_token: String,
    #[serde(default)]
    pub expires_in: Option<i64>,
    #[serde(default)]
    pub id_token: Option<String>,
}

/// A bank and what lendhub learnt of it: its endpoints, found once, and
/// its client-credentials token, reused until shortly before it expires.
pub(super) struct Bank {
    pub connection: BankConnection,
    discovered: tokio::sync::OnceCell<Discovery>,
    client_token: Mutex<Option<(String, OffsetDateTime)>>,
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
                    client_token: Mutex::new(None),
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

    pub async fn discovery<'a>(&self, bank: &'a Bank) -> Result<&'a Discovery, BankUnavailable> {
        bank.discovered
            .get_or_try_init(|| async {
                let answer = self.http.get(&bank.connection.discovery_url).send().await;
                read(&bank.connection, "its discovery document", answer).await
            })
            .await
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
        Ok(self
            .http
            .post(&discovery.token_endpoint)
            .basic_auth(&c.client_id, Some(c.client_secret.expose()))
            .form(form)
            .send()
            .await)
    }

    /// The client's own token for `scope` (`accounts`, `payments`).
    pub async fn client_token(&self, bank: &Bank, scope: &str) -> Result<String, BankUnavailable> {
        let now = self.clock.now();
        if let Some((token, until)) = bank.client_token.lock().clone()
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
            *bank.client_token.lock() = Some((
                answer.access_token.clone(),
                now + time::Duration::seconds(life),
            ));
        }
        Ok(answer.access_token)
    }
}

/// `request` with the headers the standard asks of every resource
/// request: the bearer token, and an RFC 4122 interaction id the bank
/// echoes for tracing.
pub(super) fn resource(request: RequestBuilder, token: &str) -> RequestBuilder {
    request
        .bearer_auth(token)
        .header("x-fapi-interaction-id", interaction_id())
        .header(reqwest::header::ACCEPT, "application/json")
}

/// A random (version 4) UUID.
fn interaction_id() -> String {
    let mut b: [u8; 16] = lendhub_system::random_bytes();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
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
