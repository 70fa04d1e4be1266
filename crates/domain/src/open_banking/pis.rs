//! Payment Initiation API (PIS), domestic single payments: the consent
//! lendhub asks the payer's bank for (`POST /domestic-payment-consents`),
//! the payment it submits once the payer has authorised it
//! (`POST /domestic-payments`), and what the bank's statuses mean for a
//! collection ([`Progress`]). Members lendhub does not read are ignored.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::ais::Identification;
use super::amount::Amount;
use crate::servicing::collection::FailureReason;

/// The most the standard takes in an instruction's and an end-to-end
/// identification (Faster Payments reads 31 of the end-to-end's).
pub const MAX_IDENTIFICATION: usize = 35;

/// `OBWriteDomesticConsent4`: `POST /domestic-payment-consents`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentRequest {
    #[serde(rename = "Data")]
    pub data: ConsentRequestData,
    #[serde(rename = "Risk")]
    pub risk: Risk,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentRequestData {
    /// `Yes`: the bank is to say, with the payment, which account paid
    /// ([`Refund`]), so a refund can go back to it.
    #[serde(
        rename = "ReadRefundAccount",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub read_refund_account: Option<String>,
    #[serde(rename = "Initiation")]
    pub initiation: Initiation,
}

/// `ReadRefundAccount`'s value asking for the refund account.
pub const READ_REFUND_ACCOUNT: &str = "Yes";

/// `Data.Refund` of a payment (OB v3.1.x): the account that paid, which
/// the bank gives when the consent asked `ReadRefundAccount: Yes`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refund {
    #[serde(rename = "Account")]
    pub account: Identification,
}

impl Refund {
    /// The paying account's sort code then account number, if the bank
    /// named it that way.
    pub fn sort_code_account_number(&self) -> Option<&str> {
        (self.account.scheme_name == super::ais::SORT_CODE_ACCOUNT_NUMBER)
            .then_some(self.account.identification.as_str())
    }
}

/// `OBRisk1`, as far as lendhub states it: a payment to a business the
/// payer has a contract with, for a loan's repayment.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Risk {
    #[serde(
        rename = "PaymentContextCode",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub payment_context_code: Option<String>,
    #[serde(
        rename = "ContractPresentInidicator",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub contract_present: Option<bool>,
    #[serde(
        rename = "BeneficiaryPrepopulatedIndicator",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub beneficiary_prepopulated: Option<bool>,
}

impl Risk {
    /// A repayment to the lender: billed in arrears, under the loan
    /// agreement, the creditor filled in by lendhub and not the payer.
    pub fn repayment() -> Self {
        Self {
            payment_context_code: Some("BillingGoodsAndServicesInArrears".to_owned()),
            contract_present: Some(true),
            beneficiary_prepopulated: Some(true),
        }
    }
}

/// The instruction: who is paid how much, under which references. The same
/// object is sent with the consent and again with the payment, unchanged
/// (the bank refuses a payment whose initiation differs from its
/// consent's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Initiation {
    #[serde(rename = "InstructionIdentification")]
    pub instruction_identification: String,
    #[serde(rename = "EndToEndIdentification")]
    pub end_to_end_identification: String,
    #[serde(
        rename = "LocalInstrument",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub local_instrument: Option<String>,
    #[serde(rename = "InstructedAmount")]
    pub instructed_amount: Amount,
    #[serde(rename = "CreditorAccount")]
    pub creditor_account: Identification,
    #[serde(
        rename = "RemittanceInformation",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub remittance_information: Option<RemittanceInformation>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemittanceInformation {
    /// What the payer's statement shows: Faster Payments carries 18
    /// characters.
    #[serde(rename = "Reference", default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(
        rename = "Unstructured",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub unstructured: Option<String>,
}

/// The Faster Payments reference limit.
pub const MAX_REFERENCE: usize = 18;

/// `OBWriteDomesticConsentResponse5`'s `Data`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Consent {
    #[serde(rename = "ConsentId")]
    pub consent_id: String,
    #[serde(rename = "Status")]
    pub status: ConsentStatus,
    #[serde(rename = "CreationDateTime", with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    #[serde(rename = "StatusUpdateDateTime", with = "time::serde::rfc3339")]
    pub status_updated: OffsetDateTime,
    #[serde(rename = "Initiation")]
    pub initiation: Initiation,
    #[serde(
        rename = "ReadRefundAccount",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub read_refund_account: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConsentStatus {
    AwaitingAuthorisation,
    Authorised,
    Consumed,
    Rejected,
}

/// `OBWriteDomestic2`: `POST /domestic-payments`, under an authorised
/// consent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaymentRequest {
    #[serde(rename = "Data")]
    pub data: PaymentRequestData,
    #[serde(rename = "Risk")]
    pub risk: Risk,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaymentRequestData {
    #[serde(rename = "ConsentId")]
    pub consent_id: String,
    #[serde(rename = "Initiation")]
    pub initiation: Initiation,
}

/// `OBWriteDomesticResponse5`'s `Data`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payment {
    #[serde(rename = "DomesticPaymentId")]
    pub domestic_payment_id: String,
    #[serde(rename = "ConsentId")]
    pub consent_id: String,
    #[serde(rename = "Status")]
    pub status: PaymentStatus,
    #[serde(rename = "CreationDateTime", with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    #[serde(rename = "StatusUpdateDateTime", with = "time::serde::rfc3339")]
    pub status_updated: OffsetDateTime,
    #[serde(rename = "Initiation")]
    pub initiation: Initiation,
    /// The account that paid, when the consent asked for it.
    #[serde(rename = "Refund", default, skip_serializing_if = "Option::is_none")]
    pub refund: Option<Refund>,
}

/// The payment's status as the payer's bank reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PaymentStatus {
    Pending,
    AcceptedSettlementInProcess,
    AcceptedWithoutPosting,
    AcceptedSettlementCompleted,
    AcceptedCreditSettlementCompleted,
    Rejected,
}

/// What a status means for the collection it pays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Still with the bank: ask again (or wait for its notification).
    InProgress,
    /// The payer's account was debited and the payment sent over Faster
    /// Payments, which does not recall it (docs/decisions.md).
    Settled,
    /// The bank refused it after the payer authorised it.
    Failed(FailureReason),
}

impl PaymentStatus {
    pub fn progress(self) -> Progress {
        use PaymentStatus::*;
        match self {
            Pending | AcceptedSettlementInProcess | AcceptedWithoutPosting => Progress::InProgress,
            AcceptedSettlementCompleted | AcceptedCreditSettlementCompleted => Progress::Settled,
            // The standard gives no reason code on the payment; a refusal
            // after authorisation is most often the balance.
            Rejected => Progress::Failed(FailureReason::InsufficientFunds),
        }
    }
}
