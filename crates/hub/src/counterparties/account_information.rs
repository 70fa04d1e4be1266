//! Account information over the standard's Account and Transaction API:
//! an account-access consent made with the client's token, the payer's
//! authorisation at their bank (a signed request object naming the
//! consent), the authorization code exchanged for the payer's token (its
//! ID token checked), then the account, its balance and its transactions,
//! every page of them, read into the cash flow the decision engine reads.

use async_trait::async_trait;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use lendhub_domain::open_banking::ais::{
    self, Accounts, Balances, ConsentRequest, Document, Transactions,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;

use reqwest::StatusCode;

use super::open_banking::{
    Bank, BankConnection, Banks, TokenAnswer, consent_refused, read, resource,
};
use super::{AccessRequest, AccountInformation, BankUnavailable, ConnectedAccount, ReadRefused};

/// How long lendhub asks to read: it reads once, when the payer returns.
const CONSENT_LIFE: time::Duration = time::Duration::hours(1);
/// How long the request object is good for.
const REQUEST_LIFE: time::Duration = time::Duration::minutes(10);
/// Pages of transactions read at most (a year is a handful).
const MAX_PAGES: usize = 40;

pub struct OpenBankingAis {
    banks: Banks,
}

impl OpenBankingAis {
    /// `banks`, each reached within `timeout`; `redirect_uri` is lendhub's
    /// at every bank (`{hub public_url}/open-banking/callback`).
    pub fn new(
        banks: Vec<BankConnection>,
        redirect_uri: String,
        timeout: std::time::Duration,
        clock: std::sync::Arc<dyn lendhub_domain::clock::Clock>,
    ) -> Result<Self, reqwest::Error> {
        Ok(Self {
            banks: Banks::new(banks, redirect_uri, timeout, clock)?,
        })
    }

    fn bank(&self, id: &str) -> Result<&Bank, BankUnavailable> {
        self.banks
            .bank(id)
            .ok_or_else(|| BankUnavailable(format!("no bank {id} is configured")))
    }

    fn ais(bank: &Bank, path: &str) -> String {
        format!(
            "{}/aisp{path}",
            bank.connection.api_base_url.trim_end_matches('/')
        )
    }

    /// `url` read with the payer's `token`: refused when the bank says the
    /// consent no longer holds.
    async fn get<T: DeserializeOwned>(
        &self,
        bank: &Bank,
        url: &str,
        token: &str,
        what: &str,
    ) -> Result<T, ReadRefused> {
        let answer = resource(self.banks.http.get(url), token).send().await;
        if let Ok(r) = &answer
            && consent_refused(r.status())
        {
            return Err(ReadRefused::Consent);
        }
        Ok(read(&bank.connection, what, answer).await?)
    }
}

#[derive(Serialize)]
struct RequestObject<'a> {
    iss: &'a str,
    aud: &'a str,
    iat: i64,
    exp: i64,
    response_type: &'static str,
    client_id: &'a str,
    redirect_uri: &'a str,
    scope: &'static str,
    state: &'a str,
    nonce: &'a str,
    claims: serde_json::Value,
}

#[derive(Deserialize)]
struct IdToken {
    nonce: Option<String>,
    openbanking_intent_id: String,
}

#[async_trait]
impl AccountInformation for OpenBankingAis {
    fn banks(&self) -> Vec<(String, String)> {
        self.banks
            .banks
            .iter()
            .map(|b| (b.connection.id.clone(), b.connection.name.clone()))
            .collect()
    }

    async fn authorisation_origins(&self) -> Vec<String> {
        let mut origins = Vec::new();
        for bank in &self.banks.banks {
            let Ok(discovery) = self.banks.discovery(bank).await else {
                continue;
            };
            if let Ok(url) = url::Url::parse(&discovery.authorization_endpoint) {
                origins.push(url.origin().ascii_serialization());
            }
        }
        origins
    }

    async fn request_access(
        &self,
        bank_id: &str,
        state: &str,
        nonce: &str,
    ) -> Result<AccessRequest, BankUnavailable> {
        let bank = self.bank(bank_id)?;
        let token = self.banks.client_token(bank, "accounts").await?;
        let now = self.banks.clock.now();
        let asked = resource(
            self.banks
                .http
                .post(Self::ais(bank, "/account-access-consents")),
            &token,
        )
        .json(&ConsentRequest::new(now + CONSENT_LIFE))
        .send()
        .await;
        let consent: Document<ais::Consent> =
            read(&bank.connection, "an account-access consent", asked).await?;
        let consent_id = consent.data.consent_id;
        let discovery = self.banks.discovery(bank).await?;
        let c = &bank.connection;
        let claims = RequestObject {
            iss: &c.client_id,
            aud: &discovery.issuer,
            iat: now.unix_timestamp(),
            exp: (now + REQUEST_LIFE).unix_timestamp(),
            response_type: "code",
            client_id: &c.client_id,
            redirect_uri: &self.banks.redirect_uri,
            scope: "openid accounts",
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
            .append_pair("redirect_uri", &self.banks.redirect_uri)
            .append_pair("scope", "openid accounts")
            .append_pair("state", state)
            .append_pair("nonce", nonce)
            .append_pair("request", &request);
        Ok(AccessRequest {
            consent_id,
            authorise_url: url.into(),
        })
    }

    async fn read_account(
        &self,
        bank_id: &str,
        code: &str,
        nonce: &str,
    ) -> Result<ConnectedAccount, ReadRefused> {
        let bank = self.bank(bank_id)?;
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", self.banks.redirect_uri.as_str()),
        ];
        let exchanged = self.banks.ask_token(bank, &form).await?;
        // A code the bank will not exchange (spent, expired: 400 or 401)
        // is the payer's consent not holding; anything else is the bank.
        if let Ok(r) = &exchanged
            && matches!(
                r.status(),
                StatusCode::BAD_REQUEST | StatusCode::UNAUTHORIZED
            )
        {
            return Err(ReadRefused::Consent);
        }
        let answer: TokenAnswer = read(&bank.connection, "a token", exchanged).await?;
        let discovery = self.banks.discovery(bank).await?;
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
            .ok_or(ReadRefused::Consent)?;
        let consent_id = id_token.claims.openbanking_intent_id;
        let token = answer.access_token;
        let accounts: Document<Accounts> = self
            .get(bank, &Self::ais(bank, "/accounts"), &token, "accounts")
            .await?;
        let account = accounts
            .data
            .account
            .into_iter()
            .find(|a| a.usable() && a.sort_code_account_number().is_some())
            .ok_or(ReadRefused::NoUsableAccount)?;
        let id = &account.account_id;
        let balances: Document<Balances> = self
            .get(
                bank,
                &Self::ais(bank, &format!("/accounts/{id}/balances")),
                &token,
                "balances",
            )
            .await?;
        let mut transactions = Vec::new();
        let mut next = Some(Self::ais(bank, &format!("/accounts/{id}/transactions")));
        let api = Self::ais(bank, "/");
        for _ in 0..MAX_PAGES {
            let Some(url) = next.take() else { break };
            // A link elsewhere than the bank's API is not followed.
            if !url.starts_with(&api) {
                return Err(ReadRefused::Unavailable(BankUnavailable(format!(
                    "{} linked outside its API: {url}",
                    c.name
                ))));
            }
            let page: Document<Transactions> = self.get(bank, &url, &token, "transactions").await?;
            transactions.extend(page.data.transaction);
            next = page.links.and_then(|l| l.next);
        }
        let banking = ais::cash_flow(&transactions)
            .map_err(|e| BankUnavailable(format!("{}'s transactions: {e}", c.name)))?;
        let balance_pence = balances
            .data
            .balance
            .iter()
            .find(|b| b.account_id == *id)
            .and_then(|b| {
                let pence = b.amount.pence()?;
                Some(if b.credit_debit == "Debit" {
                    -pence
                } else {
                    pence
                })
            });
        Ok(ConnectedAccount {
            consent_id,
            payout: account
                .sort_code_account_number()
                .map(str::to_owned)
                .unwrap_or_default(),
            name: account.nickname.clone(),
            balance_pence,
            banking,
        })
    }
}
