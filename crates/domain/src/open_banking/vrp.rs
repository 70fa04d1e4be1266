//! Variable Recurring Payments API (VRP), domestic, as UK Open Banking
//! v3.1.11 defines it: the standing consent lendhub asks the payer's bank
//! for (`POST /domestic-vrp-consents`) with its control parameters (the
//! most one payment and one period may take), and each payment lendhub
//! then makes under it without the payer (`POST /domestic-vrps`). A
//! schedule's mandate is such a consent. Members lendhub does not read are
//! ignored; statuses are the payment initiation API's
//! ([`PaymentStatus`](super::pis::PaymentStatus)).

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::ais::Identification;
use super::amount::Amount;
use super::pis::{PaymentStatus, RemittanceInformation, Risk};

/// The standard's VRP type for a payment to a third party (not a sweep
/// between the payer's own accounts).
pub const VRP_TYPE_OTHER: &str = "UK.OBIE.VRPType.Other";
/// Payments under the consent are made without the payer present.
pub const SCA_NOT_REQUIRED: &str = "UK.OBIE.SCANotRequired";

/// `OBDomesticVRPConsentRequest`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentRequest {
    #[serde(rename = "Data")]
    pub data: ConsentRequestData,
    #[serde(rename = "Risk")]
    pub risk: Risk,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentRequestData {
    /// `Yes`: each payment names the account that paid (`Refund`).
    #[serde(
        rename = "ReadRefundAccount",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub read_refund_account: Option<String>,
    #[serde(rename = "ControlParameters")]
    pub control_parameters: ControlParameters,
    #[serde(rename = "Initiation")]
    pub initiation: Initiation,
}

/// `OBDomesticVRPControlParameters`: what the payer agrees the lender may
/// take, which their bank enforces on every payment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlParameters {
    #[serde(
        rename = "ValidFromDateTime",
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::serde::rfc3339::option"
    )]
    pub valid_from: Option<OffsetDateTime>,
    #[serde(
        rename = "ValidToDateTime",
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::serde::rfc3339::option"
    )]
    pub valid_to: Option<OffsetDateTime>,
    #[serde(rename = "MaximumIndividualAmount")]
    pub maximum_individual_amount: Amount,
    #[serde(rename = "PeriodicLimits")]
    pub periodic_limits: Vec<PeriodicLimit>,
    #[serde(rename = "VRPType")]
    pub vrp_type: Vec<String>,
    #[serde(rename = "PSUAuthenticationMethods")]
    pub psu_authentication_methods: Vec<String>,
}

/// The most all payments in one period may take.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodicLimit {
    #[serde(rename = "PeriodType")]
    pub period_type: PeriodType,
    #[serde(rename = "PeriodAlignment")]
    pub period_alignment: PeriodAlignment,
    #[serde(flatten)]
    pub amount: Amount,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PeriodType {
    Day,
    Week,
    Fortnight,
    Month,
    #[serde(rename = "Half-year")]
    HalfYear,
    Year,
}

/// Whether a period starts on the consent's creation date or with the
/// calendar's (a calendar month, say).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PeriodAlignment {
    Consent,
    Calendar,
}

/// `OBDomesticVRPInitiation`: who is paid, the same on the consent and on
/// every payment under it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Initiation {
    #[serde(rename = "CreditorAccount")]
    pub creditor_account: Identification,
    #[serde(
        rename = "RemittanceInformation",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub remittance_information: Option<RemittanceInformation>,
}

/// `OBDomesticVRPConsentResponse`'s `Data`.
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
    #[serde(rename = "ControlParameters")]
    pub control_parameters: ControlParameters,
    #[serde(rename = "Initiation")]
    pub initiation: Initiation,
    #[serde(
        rename = "ReadRefundAccount",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub read_refund_account: Option<String>,
}

/// The statuses the standard's consent response names. A consent revoked
/// by the payer at their bank, or by lendhub (`DELETE`), is no longer
/// served: payments under it are refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConsentStatus {
    AwaitingAuthorisation,
    Authorised,
    Rejected,
}

/// `OBDomesticVRPRequest`: one payment under an authorised consent.
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
    #[serde(rename = "PSUAuthenticationMethod")]
    pub psu_authentication_method: String,
    #[serde(rename = "VRPType")]
    pub vrp_type: String,
    #[serde(rename = "Initiation")]
    pub initiation: Initiation,
    #[serde(rename = "Instruction")]
    pub instruction: Instruction,
}

/// `OBDomesticVRPInstruction`: this payment's identification and amount.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instruction {
    #[serde(rename = "InstructionIdentification")]
    pub instruction_identification: String,
    #[serde(rename = "EndToEndIdentification")]
    pub end_to_end_identification: String,
    #[serde(
        rename = "RemittanceInformation",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub remittance_information: Option<RemittanceInformation>,
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
    /// The standard's room for what its fields do not carry: lendhub
    /// states the instalment's due date (`DueDate`), which the model bank
    /// counts the consent's periods by, so an owner's test clock moves the
    /// bank's periods with lendhub's dates. A real bank ignores it.
    #[serde(
        rename = "SupplementaryData",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub supplementary_data: Option<SupplementaryData>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SupplementaryData {
    #[serde(rename = "DueDate", default, skip_serializing_if = "Option::is_none")]
    pub due_date: Option<time::Date>,
}

/// `OBDomesticVRPResponse`'s `Data`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payment {
    #[serde(rename = "DomesticVRPId")]
    pub domestic_vrp_id: String,
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
    #[serde(rename = "Instruction")]
    pub instruction: Instruction,
    /// The account that paid, when the consent asked for it (the VRP
    /// standard's `OBCashAccountDebtorWithName`, not wrapped as PIS wraps
    /// it in `Account`).
    #[serde(rename = "Refund", default, skip_serializing_if = "Option::is_none")]
    pub refund: Option<super::ais::Identification>,
}

impl ControlParameters {
    /// Whether a payment of `pence` fits the most one payment may take.
    pub fn allows_payment(&self, pence: i64) -> bool {
        self.maximum_individual_amount
            .pence()
            .is_some_and(|most| pence <= most)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_periodic_limit_is_written_as_the_standard_shows_it() {
        let limit = PeriodicLimit {
            period_type: PeriodType::HalfYear,
            period_alignment: PeriodAlignment::Calendar,
            amount: Amount::gbp(46_589),
        };
        let written = serde_json::to_value(&limit).unwrap_or_default();
        assert_eq!(
            written,
            serde_json::json!({"PeriodType": "Half-year", "PeriodAlignment": "Calendar",
                               "Amount": "465.89", "Currency": "GBP"})
        );
        let read: Result<PeriodicLimit, _> = serde_json::from_value(written);
        assert_eq!(read.ok(), Some(limit));
    }
}
