//! Account information over the standard's Account and Transaction API:
//! an account-access consent made with the client's token, the payer's
//! authorisation at their bank (a signed request object naming the
//! consent), the authorization code exchanged for the payer's token (its
//! ID token checked), then the account, its balance and its transactions,
//! every page of them, read into the cash flow the decision engine reads.

use async_trait::async_trait;
use lendhub_domain::open_banking::ais::{
    self, Accounts, Balances, ConsentRequest, Document, Transactions,
};
use serde::de::DeserializeOwned;

use super::hop;
use super::open_banking::{
    Bank, BankConnection, Banks, CodeRefused, consent_refused, read, resource,
};
use super::{AccessRequest, AccountInformation, BankUnavailable, ConnectedAccount, ReadRefused};

/// How long lendhub asks to read: it reads once, when the payer returns.
const CONSENT_LIFE: time::Duration = time::Duration::hours(1);
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
        (operation, what): (&str, &str),
    ) -> Result<T, ReadRefused> {
        let answer = hop::send(
            hop::BANK,
            operation,
            resource(self.banks.http.get(url), token),
        )
        .await;
        if let Ok(r) = &answer
            && consent_refused(r.status())
        {
            return Err(ReadRefused::Consent);
        }
        Ok(read(&bank.connection, what, answer).await?)
    }
}

#[async_trait]
impl AccountInformation for OpenBankingAis {
    fn banks(&self) -> Vec<(String, String)> {
        self.banks.names()
    }

    async fn authorisation_origins(&self) -> Vec<String> {
        self.banks.authorisation_origins().await
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
        let asked = hop::send(
            hop::BANK,
            "POST /account-access-consents",
            resource(
                self.banks
                    .http
                    .post(Self::ais(bank, "/account-access-consents")),
                &token,
            )
            .json(&ConsentRequest::new(now + CONSENT_LIFE)),
        )
        .await;
        let consent: Document<ais::Consent> =
            read(&bank.connection, "an account-access consent", asked).await?;
        let consent_id = consent.data.consent_id;
        let authorise_url = self
            .banks
            .authorise_url(bank, &consent_id, "openid accounts", (state, nonce))
            .await?;
        Ok(AccessRequest {
            consent_id,
            authorise_url,
        })
    }

    async fn read_account(
        &self,
        bank_id: &str,
        code: &str,
        nonce: &str,
    ) -> Result<ConnectedAccount, ReadRefused> {
        let bank = self.bank(bank_id)?;
        let (token, consent_id) = match self.banks.exchange_code(bank, code, nonce).await {
            Ok(exchanged) => (exchanged.tokens.access_token, exchanged.consent_id),
            Err(CodeRefused::Consent) => return Err(ReadRefused::Consent),
            Err(CodeRefused::Unavailable(e)) => return Err(e.into()),
        };
        let c = &bank.connection;
        let accounts: Document<Accounts> = self
            .get(
                bank,
                &Self::ais(bank, "/accounts"),
                &token,
                ("GET /accounts", "accounts"),
            )
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
                ("GET /accounts/{AccountId}/balances", "balances"),
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
            let operation = ("GET /accounts/{AccountId}/transactions", "transactions");
            let page: Document<Transactions> = self.get(bank, &url, &token, operation).await?;
            transactions.extend(page.data.transaction);
            next = page.links.and_then(|l| l.next);
        }
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
        let banking = ais::cash_flow(&transactions, balance_pence)
            .map_err(|e| BankUnavailable(format!("{}'s transactions: {e}", c.name)))?;
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
