//! Payment initiation over the standard's Payment Initiation API, domestic
//! single payments: a payment consent made with the client's token, the
//! payer's authorisation at their bank, the code exchanged for the payer's
//! token, the payment submitted under the consent, and its status read
//! with the client's token until the bank settles or rejects it.
//!
//! Both POSTs carry `x-idempotency-key`: the consent's is derived from the
//! order and the attempt, the payment's is the order's id, so a request
//! repeated after a lost answer makes one payment at the bank.

use async_trait::async_trait;
use lendhub_domain::open_banking::ais::Document;
use lendhub_domain::open_banking::amount::Amount;
use lendhub_domain::open_banking::events::Notification;
use lendhub_domain::open_banking::pis::{
    self, ConsentRequest, ConsentRequestData, Initiation, PaymentRequest, PaymentRequestData,
    RemittanceInformation, Risk,
};

use super::hop;
use super::message_signing::MessageSigner;
use super::open_banking::{BankConnection, CodeRefused, resource};
use super::payments_api::{PaymentsApi, idempotency_key};
use super::{
    AccessRequest, BankPayment, BankPayments, BankUnavailable, CollectionAccount,
    NotificationRefused, PaymentOrder, SubmitRefused,
};

pub struct OpenBankingPis {
    api: PaymentsApi,
}

impl OpenBankingPis {
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
            api: PaymentsApi::new(banks, creditor, signer, redirect_uri, timeout, clock)?,
        })
    }

    /// The instruction for `order`, the same for its consent and its
    /// payment (the bank refuses a payment whose instruction differs).
    fn initiation(&self, order: &PaymentOrder) -> Result<Initiation, BankUnavailable> {
        let amount = Amount::of(order.amount)
            .ok_or_else(|| BankUnavailable(format!("{} is no amount to pay", order.amount)))?;
        let id: String = order.id.chars().take(pis::MAX_IDENTIFICATION).collect();
        let reference: String = order.reference.chars().take(pis::MAX_REFERENCE).collect();
        Ok(Initiation {
            instruction_identification: id.clone(),
            end_to_end_identification: id,
            local_instrument: Some("UK.OBIE.FPS".to_owned()),
            instructed_amount: amount,
            creditor_account: self.api.creditor_account(),
            remittance_information: Some(RemittanceInformation {
                reference: Some(reference),
                unstructured: None,
            }),
        })
    }

    fn progressed(payment: pis::Payment) -> BankPayment {
        BankPayment {
            progress: payment.status.progress(),
            payer_account: payment
                .refund
                .as_ref()
                .and_then(|r| r.sort_code_account_number())
                .map(str::to_owned),
            domestic_payment_id: payment.domestic_payment_id,
            instruction_id: payment.initiation.instruction_identification,
        }
    }
}

#[async_trait]
impl BankPayments for OpenBankingPis {
    fn banks(&self) -> Vec<(String, String)> {
        self.api.banks.names()
    }

    async fn authorisation_origins(&self) -> Vec<String> {
        self.api.banks.authorisation_origins().await
    }

    async fn request_payment(
        &self,
        bank_id: &str,
        order: &PaymentOrder,
        (state, nonce): (&str, &str),
    ) -> Result<AccessRequest, BankUnavailable> {
        let bank = self.api.bank(bank_id)?;
        let request = ConsentRequest {
            data: ConsentRequestData {
                // A refund goes back to the account that paid.
                read_refund_account: Some(pis::READ_REFUND_ACCOUNT.to_owned()),
                initiation: self.initiation(order)?,
            },
            risk: Risk::repayment(),
        };
        // One consent per attempt: the state is new each time the payer
        // starts at their bank.
        self.api
            .ask_consent(
                bank,
                ("/domestic-payment-consents", "a payment consent"),
                &request,
                (state, nonce),
            )
            .await
    }

    async fn submit_payment(
        &self,
        bank_id: &str,
        order: &PaymentOrder,
        consent_id: &str,
        (code, nonce): (&str, &str),
    ) -> Result<BankPayment, SubmitRefused> {
        let bank = self.api.bank(bank_id)?;
        let (token, authorised) = match self.api.banks.exchange_code(bank, code, nonce).await {
            Ok(exchanged) => (exchanged.tokens.access_token, exchanged.consent_id),
            Err(CodeRefused::Consent) => return Err(SubmitRefused::Consent),
            Err(CodeRefused::Unavailable(e)) => return Err(e.into()),
        };
        // The code must be for the consent this order asked for.
        if authorised != consent_id {
            return Err(SubmitRefused::Consent);
        }
        let request = PaymentRequest {
            data: PaymentRequestData {
                consent_id: consent_id.to_owned(),
                initiation: self.initiation(order)?,
            },
            risk: Risk::repayment(),
        };
        let request = self.api.post_signed(
            PaymentsApi::url(bank, "/domestic-payments"),
            &token,
            idempotency_key(order.id.as_bytes()),
            &request,
        )?;
        let submitted = hop::send(hop::BANK, "POST /domestic-payments", request).await;
        if let Ok(r) = &submitted
            && super::open_banking::consent_refused(r.status())
        {
            return Err(SubmitRefused::Consent);
        }
        let payment: Document<pis::Payment> = self
            .api
            .banks
            .read_signed(bank, "a domestic payment", submitted)
            .await?;
        Ok(Self::progressed(payment.data))
    }

    async fn payment_status(
        &self,
        bank_id: &str,
        domestic_payment_id: &str,
    ) -> Result<BankPayment, BankUnavailable> {
        let bank = self.api.bank(bank_id)?;
        let token = self.api.banks.client_token(bank, "payments").await?;
        let url = PaymentsApi::url(bank, &format!("/domestic-payments/{domestic_payment_id}"));
        let answer = hop::send(
            hop::BANK,
            "GET /domestic-payments/{DomesticPaymentId}",
            resource(self.api.banks.http.get(url), &token),
        )
        .await;
        let payment: Document<pis::Payment> = self
            .api
            .banks
            .read_signed(bank, "a domestic payment", answer)
            .await?;
        Ok(Self::progressed(payment.data))
    }

    async fn notification(
        &self,
        bank_id: &str,
        token: &str,
    ) -> Result<Notification, NotificationRefused> {
        let bank = self
            .api
            .banks
            .bank(bank_id)
            .ok_or(NotificationRefused::UnknownBank)?;
        self.api.banks.notification(bank, token).await
    }
}
