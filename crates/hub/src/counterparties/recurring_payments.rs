//! Mandates over the standard's Variable Recurring Payments API (domestic
//! VRP): a consent with control parameters made with the client's token,
//! the payer's authorisation at their bank, the code exchanged for the
//! payer's token (and its refresh token), and each instalment then paid
//! under the consent without the payer, its status read with the client's
//! token until the bank settles or rejects it.
//!
//! Every POST is signed (`x-jws-signature`) and carries an
//! `x-idempotency-key`: the consent's derived from the authorisation's
//! state, each payment's from the instalment's id, so an instalment asked
//! for twice after a lost answer is one payment at the bank.
//!
//! Renewed tokens are kept before they are used (the bank may rotate the
//! refresh token), and a refused token is a revoked mandate only when the
//! bank's consent says so: instances racing to renew one mandate's tokens,
//! or clocks that disagree about a token's life, leave an instalment for a
//! later pass rather than ending a payer's mandate.

use async_trait::async_trait;
use lendhub_domain::open_banking::ais::Document;
use lendhub_domain::open_banking::amount::Amount;
use lendhub_domain::open_banking::pis::{self, RemittanceInformation, Risk};
use lendhub_domain::open_banking::vrp::{
    self, ConsentRequest, ConsentRequestData, ControlParameters, Initiation, Instruction,
    PaymentRequest, PaymentRequestData, PeriodAlignment, PeriodicLimit, SCA_NOT_REQUIRED,
    SupplementaryData, VRP_TYPE_OTHER,
};
use reqwest::StatusCode;

use super::hop;
use super::message_signing::MessageSigner;
use super::open_banking::{Bank, BankConnection, CodeRefused, TokenAnswer, resource};
use super::payments_api::{PaymentsApi, idempotency_key};
use super::{
    AccessRequest, BankMandates, BankPayment, BankUnavailable, CollectRefused, CollectionAccount,
    KeepTokens, MandateAtBank, MandateTerms, PayerTokens, PaymentOrder, SubmitRefused,
};

pub struct OpenBankingVrp {
    api: PaymentsApi,
}

impl OpenBankingVrp {
    /// `banks`, each reached within `timeout`, collecting into `creditor`;
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
            api: PaymentsApi::new(banks, creditor, signer, redirect_uri, timeout, clock)?,
        })
    }

    /// Who is paid, under the mandate's reference: the same on the consent
    /// and on every payment (the bank refuses one whose initiation differs).
    fn initiation(&self, reference: &str) -> Initiation {
        Initiation {
            creditor_account: self.api.creditor_account(),
            remittance_information: Some(RemittanceInformation {
                reference: Some(reference.chars().take(pis::MAX_REFERENCE).collect()),
                unstructured: None,
            }),
        }
    }

    fn amount(money: lendhub_domain::money::Money) -> Result<Amount, BankUnavailable> {
        Amount::of(money).ok_or_else(|| BankUnavailable(format!("{money} is no amount to pay")))
    }

    fn tokens(&self, issued: TokenAnswer) -> PayerTokens {
        PayerTokens {
            access_expires_at: self.api.banks.clock.now()
                + time::Duration::seconds(issued.expires_in.unwrap_or(0)),
            access_token: issued.access_token.into(),
            refresh_token: issued.refresh_token.map(Into::into),
        }
    }

    /// The payer's tokens renewed with their refresh token, kept before
    /// they are returned. A refresh token the bank refuses is a revoked
    /// mandate only if the bank says the consent no longer stands:
    /// otherwise another instance renewed it first (the bank rotates it)
    /// and holds the new tokens, so this instalment waits for a later pass.
    async fn renew(
        &self,
        bank: &Bank,
        mandate: &MandateAtBank,
        tokens: &PayerTokens,
        keep: &dyn KeepTokens,
    ) -> Result<PayerTokens, CollectRefused> {
        let Some(refresh) = &tokens.refresh_token else {
            return Err(self.unless_standing(bank, mandate).await);
        };
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.expose().as_str()),
        ];
        let renewed = match self.api.banks.refresh(bank, &form).await {
            Ok(renewed) => renewed,
            Err(CodeRefused::Consent) => return Err(self.unless_standing(bank, mandate).await),
            Err(CodeRefused::Unavailable(e)) => return Err(CollectRefused::Unavailable(e)),
        };
        let mut renewed = self.tokens(renewed);
        // A bank may keep the refresh token it issued first.
        if renewed.refresh_token.is_none() {
            renewed.refresh_token = tokens.refresh_token.clone();
        }
        keep.keep(&renewed).await?;
        Ok(renewed)
    }

    /// `Revoked` if the bank says `mandate`'s consent no longer stands
    /// (not authorised, or unknown); if it still stands, lendhub's tokens
    /// were refused for another reason and the payment is tried later.
    async fn unless_standing(&self, bank: &Bank, mandate: &MandateAtBank) -> CollectRefused {
        let standing = async {
            let token = self.api.banks.client_token(bank, "payments").await?;
            let url = PaymentsApi::url(
                bank,
                &format!("/domestic-vrp-consents/{}", mandate.consent_id),
            );
            let answer = hop::send(
                hop::BANK,
                "GET /domestic-vrp-consents/{ConsentId}",
                resource(self.api.banks.http.get(url), &token),
            )
            .await;
            if let Ok(answer) = &answer
                && answer.status() == StatusCode::NOT_FOUND
            {
                return Ok(None);
            }
            let consent: Document<vrp::Consent> = self
                .api
                .banks
                .read_signed(bank, "a VRP consent", answer)
                .await?;
            Ok::<_, BankUnavailable>(Some(consent.data.status))
        };
        match standing.await {
            Ok(Some(vrp::ConsentStatus::Authorised)) => {
                CollectRefused::Unavailable(BankUnavailable(format!(
                    "{} refused the payer's token under a consent it still holds authorised",
                    bank.connection.name
                )))
            }
            Ok(_) => CollectRefused::Revoked,
            Err(e) => CollectRefused::Unavailable(e),
        }
    }

    fn progressed(payment: vrp::Payment) -> BankPayment {
        BankPayment {
            progress: payment.status.progress(),
            payer_account: payment
                .refund
                .as_ref()
                .filter(|a| {
                    a.scheme_name == lendhub_domain::open_banking::ais::SORT_CODE_ACCOUNT_NUMBER
                })
                .map(|a| a.identification.clone()),
            domestic_payment_id: payment.domestic_vrp_id,
            instruction_id: payment.instruction.instruction_identification,
        }
    }
}

#[async_trait]
impl BankMandates for OpenBankingVrp {
    async fn request_mandate(
        &self,
        bank_id: &str,
        terms: &MandateTerms,
        (state, nonce): (&str, &str),
    ) -> Result<AccessRequest, BankUnavailable> {
        let bank = self.api.bank(bank_id)?;
        let request = ConsentRequest {
            data: ConsentRequestData {
                // A refund goes back to the account that paid.
                read_refund_account: Some(
                    lendhub_domain::open_banking::pis::READ_REFUND_ACCOUNT.to_owned(),
                ),
                control_parameters: ControlParameters {
                    valid_from: None,
                    valid_to: None,
                    maximum_individual_amount: Self::amount(terms.most_per_payment)?,
                    periodic_limits: vec![PeriodicLimit {
                        period_type: terms.period,
                        period_alignment: PeriodAlignment::Consent,
                        amount: Self::amount(terms.most_per_period)?,
                    }],
                    vrp_type: vec![VRP_TYPE_OTHER.to_owned()],
                    psu_authentication_methods: vec![SCA_NOT_REQUIRED.to_owned()],
                },
                initiation: self.initiation(terms.reference),
            },
            risk: Risk::repayment(),
        };
        // One consent per attempt: the state is new each time the payer
        // starts at their bank.
        self.api
            .ask_consent(
                bank,
                ("/domestic-vrp-consents", "a VRP consent"),
                &request,
                (state, nonce),
            )
            .await
    }

    async fn authorise_mandate(
        &self,
        bank_id: &str,
        consent_id: &str,
        (code, nonce): (&str, &str),
    ) -> Result<PayerTokens, SubmitRefused> {
        let bank = self.api.bank(bank_id)?;
        let exchanged = match self.api.banks.exchange_code(bank, code, nonce).await {
            Ok(exchanged) => exchanged,
            Err(CodeRefused::Consent) => return Err(SubmitRefused::Consent),
            Err(CodeRefused::Unavailable(e)) => return Err(e.into()),
        };
        if exchanged.consent_id != consent_id {
            return Err(SubmitRefused::Consent);
        }
        Ok(self.tokens(exchanged.tokens))
    }

    async fn collect(
        &self,
        bank_id: &str,
        mandate: &MandateAtBank,
        order: &PaymentOrder,
        keep: &dyn KeepTokens,
    ) -> Result<BankPayment, CollectRefused> {
        let bank = self.api.bank(bank_id)?;
        let mut tokens = mandate.tokens.clone();
        let soon = self.api.banks.clock.now() + time::Duration::seconds(60);
        let mut renewed = false;
        if tokens.access_expires_at <= soon {
            tokens = self.renew(bank, mandate, &tokens, keep).await?;
            renewed = true;
        }
        let id: String = order.id.chars().take(pis::MAX_IDENTIFICATION).collect();
        let request = PaymentRequest {
            data: PaymentRequestData {
                consent_id: mandate.consent_id.clone(),
                psu_authentication_method: SCA_NOT_REQUIRED.to_owned(),
                vrp_type: VRP_TYPE_OTHER.to_owned(),
                initiation: self.initiation(&mandate.reference),
                instruction: Instruction {
                    instruction_identification: id.clone(),
                    end_to_end_identification: id,
                    remittance_information: Some(RemittanceInformation {
                        reference: Some(order.reference.chars().take(pis::MAX_REFERENCE).collect()),
                        unstructured: None,
                    }),
                    local_instrument: Some("UK.OBIE.FPS".to_owned()),
                    instructed_amount: Self::amount(order.amount)?,
                    creditor_account: self.api.creditor_account(),
                    supplementary_data: order.due_on.map(|due_date| SupplementaryData {
                        due_date: Some(due_date),
                    }),
                },
            },
            risk: Risk::repayment(),
        };
        loop {
            let request = self.api.post_signed(
                PaymentsApi::url(bank, "/domestic-vrps"),
                tokens.access_token.expose(),
                idempotency_key(order.id.as_bytes()),
                &request,
            )?;
            let sent = hop::send(hop::BANK, "POST /domestic-vrps", request).await;
            let sent = match sent {
                // A token the bank no longer takes (its clock ahead of
                // lendhub's, or revoked on its side) is renewed once.
                Ok(answer) if answer.status() == StatusCode::UNAUTHORIZED && !renewed => {
                    tokens = self.renew(bank, mandate, &tokens, keep).await?;
                    renewed = true;
                    continue;
                }
                Ok(answer) if answer.status().is_client_error() => {
                    return Err(self.refusal(bank, mandate, answer).await);
                }
                other => other,
            };
            let payment: Document<vrp::Payment> = self
                .api
                .banks
                .read_signed(bank, "a domestic VRP", sent)
                .await?;
            return Ok(Self::progressed(payment.data));
        }
    }

    async fn collection_status(
        &self,
        bank_id: &str,
        domestic_vrp_id: &str,
    ) -> Result<BankPayment, BankUnavailable> {
        let bank = self.api.bank(bank_id)?;
        let token = self.api.banks.client_token(bank, "payments").await?;
        let url = PaymentsApi::url(bank, &format!("/domestic-vrps/{domestic_vrp_id}"));
        let answer = hop::send(
            hop::BANK,
            "GET /domestic-vrps/{DomesticVRPId}",
            resource(self.api.banks.http.get(url), &token),
        )
        .await;
        let payment: Document<vrp::Payment> = self
            .api
            .banks
            .read_signed(bank, "a domestic VRP", answer)
            .await?;
        Ok(Self::progressed(payment.data))
    }

    async fn end_mandate(&self, bank_id: &str, consent_id: &str) -> Result<(), BankUnavailable> {
        let bank = self.api.bank(bank_id)?;
        let token = self.api.banks.client_token(bank, "payments").await?;
        let url = PaymentsApi::url(bank, &format!("/domestic-vrp-consents/{consent_id}"));
        let answer = hop::send(
            hop::BANK,
            "DELETE /domestic-vrp-consents/{ConsentId}",
            resource(self.api.banks.http.delete(url), &token),
        )
        .await
        .map_err(|e| BankUnavailable(format!("{} did not answer: {e}", bank.connection.name)))?;
        // Already gone at the bank is as good as ended.
        match answer.status() {
            s if s.is_success() || s == StatusCode::NOT_FOUND => Ok(()),
            s => Err(BankUnavailable(format!(
                "{} answered {s} to ending a VRP consent",
                bank.connection.name
            ))),
        }
    }
}

impl OpenBankingVrp {
    /// What a 4xx to a VRP payment means, by the standard's error code: the
    /// consent's limits (`UK.OBIE.Rules.FailsControlParameters`); the
    /// consent no longer authorised (403, or the payer's renewed token
    /// refused, 401), when the bank's consent says so; anything else is
    /// lendhub's request or the bank, not the payer, and is tried again
    /// later.
    async fn refusal(
        &self,
        bank: &Bank,
        mandate: &MandateAtBank,
        answer: reqwest::Response,
    ) -> CollectRefused {
        let status = answer.status();
        let body: serde_json::Value = answer.json().await.unwrap_or_default();
        let codes: Vec<&str> = body["Errors"]
            .as_array()
            .map(|errors| {
                errors
                    .iter()
                    .filter_map(|e| e["ErrorCode"].as_str())
                    .collect()
            })
            .unwrap_or_default();
        if codes.contains(&"UK.OBIE.Rules.FailsControlParameters") {
            return CollectRefused::OverLimits;
        }
        if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return self.unless_standing(bank, mandate).await;
        }
        CollectRefused::Unavailable(BankUnavailable(format!(
            "{} refused a VRP payment with {status} {codes:?}",
            bank.connection.name
        )))
    }
}
