//! What lendhub's two payment adapters share, single payments
//! ([`OpenBankingPis`](super::OpenBankingPis)) and mandates
//! ([`OpenBankingVrp`](super::OpenBankingVrp)): the banks, the key that
//! signs every payment request, and the lender's account every payment
//! goes to.

use lendhub_domain::open_banking::ais::{Document, Identification, SORT_CODE_ACCOUNT_NUMBER};

use super::hop;
use super::message_signing::MessageSigner;
use super::open_banking::{Bank, BankConnection, Banks, resource};
use super::{AccessRequest, BankUnavailable, CollectionAccount};

pub(super) struct PaymentsApi {
    pub banks: Banks,
    /// Signs each payment request (`x-jws-signature`).
    signer: MessageSigner,
    /// Where every payment goes: the lender's collection account.
    creditor: CollectionAccount,
}

impl PaymentsApi {
    /// `banks`, each reached within `timeout`, paying into `creditor`;
    /// `redirect_uri` is lendhub's at every bank.
    pub fn new(
        banks: Vec<BankConnection>,
        creditor: CollectionAccount,
        signer: MessageSigner,
        redirect_uri: String,
        timeout: std::time::Duration,
        clock: std::sync::Arc<dyn lendhub_domain::clock::Clock>,
    ) -> Result<Self, reqwest::Error> {
        Ok(Self {
            banks: Banks::new(banks, redirect_uri, timeout, clock)?,
            signer,
            creditor,
        })
    }

    pub fn bank(&self, id: &str) -> Result<&Bank, BankUnavailable> {
        self.banks
            .bank(id)
            .ok_or_else(|| BankUnavailable(format!("no bank {id} is configured")))
    }

    /// `path` of the payment APIs (single payments and VRP live under
    /// `pisp/`).
    pub fn url(bank: &Bank, path: &str) -> String {
        format!(
            "{}/pisp{path}",
            bank.connection.api_base_url.trim_end_matches('/')
        )
    }

    pub fn creditor_account(&self) -> Identification {
        Identification {
            scheme_name: SORT_CODE_ACCOUNT_NUMBER.to_owned(),
            identification: self.creditor.sort_code_account_number.clone(),
            name: Some(self.creditor.name.clone()),
        }
    }

    /// `request` POSTed to `url` with `token`, its body signed, under
    /// `idempotency_key`.
    pub fn post_signed(
        &self,
        url: String,
        token: &str,
        idempotency_key: String,
        request: &impl serde::Serialize,
    ) -> Result<reqwest::RequestBuilder, BankUnavailable> {
        let body = serde_json::to_vec(request)
            .map_err(|e| BankUnavailable(format!("the request would not serialise: {e}")))?;
        let signature = self
            .signer
            .sign(&body, self.banks.clock.now().unix_timestamp())?;
        Ok(resource(self.banks.http.post(url), token)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("x-idempotency-key", idempotency_key)
            .header("x-jws-signature", signature)
            .body(body))
    }
}

impl PaymentsApi {
    /// A consent (`request`, POSTed to `path` under the client's token,
    /// keyed by the authorisation's `state`) and where to send the payer
    /// to authorise it: what single payments and VRP ask alike.
    pub async fn ask_consent(
        &self,
        bank: &Bank,
        (path, what): (&str, &str),
        request: &impl serde::Serialize,
        (state, nonce): (&str, &str),
    ) -> Result<AccessRequest, BankUnavailable> {
        let token = self.banks.client_token(bank, "payments").await?;
        let request = self.post_signed(
            Self::url(bank, path),
            &token,
            idempotency_key(state.as_bytes()),
            request,
        )?;
        let asked = hop::send(hop::BANK, &format!("POST {path}"), request).await;
        let consent: Document<Consent> = self.banks.read_signed(bank, what, asked).await?;
        let consent_id = consent.data.consent_id;
        let authorise_url = self
            .banks
            .authorise_url(bank, &consent_id, "openid payments", (state, nonce))
            .await?;
        Ok(AccessRequest {
            consent_id,
            authorise_url,
        })
    }
}

/// What lendhub reads of any consent the bank made: its id.
#[derive(serde::Deserialize)]
struct Consent {
    #[serde(rename = "ConsentId")]
    consent_id: String,
}

/// A key for `seed` within the standard's 40 characters: the first 40 hex
/// digits of its SHA-256.
pub(super) fn idempotency_key(seed: &[u8]) -> String {
    use sha2::Digest;
    let mut key = hex::encode(sha2::Sha256::digest(seed));
    key.truncate(40);
    key
}
