//! The JSON of ClearBank's Institution API that lendhub's payout rail
//! speaks (`docs/decisions.md`, "The payout rail"): Faster Payments
//! initiation (`POST /v3/payments/fps`, FI Initiation API 3.0), a real
//! account's transactions (`GET /v2/Accounts/{accountId}/Transactions`,
//! FI API v2) and the `TransactionSettled` (v6) and `TransactionRejected`
//! (v2) webhooks. Only the fields lendhub sends or reads are typed; the
//! rest pass through unread. Amounts are decimal pounds as JSON numbers,
//! as ClearBank's schema has them; [`pounds`] and [`pence`] cross that
//! boundary exactly.

use serde::{Deserialize, Serialize};

use crate::money::Money;

/// `Money` as ClearBank's decimal pounds. Exact: every whole-pence amount
/// below 2^53 pence has a nearest double whose shortest decimal form is
/// the amount's own two-place decimal, which is what serde writes.
pub fn pounds(amount: Money) -> f64 {
    amount.as_pence() as f64 / 100.0
}

/// Decimal pounds back as pence; none unless a whole number of pence.
pub fn pence(pounds: f64) -> Option<Money> {
    let pence = (pounds * 100.0).round();
    if !pence.is_finite() || (pounds * 100.0 - pence).abs() > 1e-6 || pence.abs() >= 9.0e15 {
        return None;
    }
    Some(Money::pence(pence as i64))
}

/// `BatchCreateCreditTransferRequest`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequest {
    pub payment_instructions: Vec<PaymentInstruction>,
}

/// `BatchPaymentInstruction`: one debtor account paying one or more
/// credit transfers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentInstruction {
    pub payment_instruction_identification: String,
    pub debtor: Debtor,
    pub debtor_account: CounterpartAccount,
    pub credit_transfers: Vec<CreditTransfer>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Debtor {
    pub address: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal_entity_identifier: Option<String>,
}

/// `BatchPaymentInstructionCounterpartAccount`: an IBAN, or (as lendhub
/// names UK accounts) a sort code and account number as `other`, under
/// the proprietary scheme `SortCodeAccountNumber`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CounterpartAccount {
    pub identification: AccountIdentification,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccountIdentification {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iban: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<OtherIdentification>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OtherIdentification {
    pub identification: String,
    pub scheme_name: SchemeName,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SchemeName {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proprietary: Option<String>,
}

/// The proprietary scheme a UK sort code and account number is sent under.
pub const SORT_CODE_ACCOUNT_NUMBER: &str = "SortCodeAccountNumber";

impl CounterpartAccount {
    /// A UK account by its sort code and account number (14 digits).
    pub fn uk(sort_code_account_number: &str) -> Self {
        Self {
            identification: AccountIdentification {
                iban: None,
                other: Some(OtherIdentification {
                    identification: sort_code_account_number.to_owned(),
                    scheme_name: SchemeName {
                        code: None,
                        proprietary: Some(SORT_CODE_ACCOUNT_NUMBER.to_owned()),
                    },
                }),
            },
        }
    }

    /// The sort code and account number, if the account is named by them.
    pub fn sort_code_account_number(&self) -> Option<&str> {
        let other = self.identification.other.as_ref()?;
        (other.scheme_name.proprietary.as_deref() == Some(SORT_CODE_ACCOUNT_NUMBER))
            .then_some(other.identification.as_str())
    }
}

/// `BatchCreditTransfer`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreditTransfer {
    pub payment_identification: PaymentIdentification,
    pub amount: Amount,
    pub creditor: Creditor,
    pub creditor_account: CounterpartAccount,
    pub remittance_information: RemittanceInformation,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentIdentification {
    pub instruction_identification: String,
    /// At most 35 characters; ClearBank's duplicate check.
    pub end_to_end_identification: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Amount {
    pub instructed_amount: f64,
    pub currency: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Creditor {
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RemittanceInformation {
    pub structured: Structured,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Structured {
    pub creditor_reference_information: CreditorReference,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreditorReference {
    /// At most 35 characters; the scheme carries the first 18.
    pub reference: String,
}

/// `BatchCreditTransferResponse` (202).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentResponse {
    pub transactions: Vec<InstructionResponse>,
    #[serde(default)]
    pub hal_links: Vec<serde_json::Value>,
}

/// `PaymentInstructionResponse`: `Accepted`, or why not
/// (`InsufficientFunds`, `InvalidAccount`, `InvalidCurrency`, `Rejected`,
/// `DebitPaymentDisabled`, `InvalidInstructionIdentification`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstructionResponse {
    pub end_to_end_identification: String,
    pub response: String,
}

pub const ACCEPTED: &str = "Accepted";

/// `GET /v2/Accounts/{accountId}/Transactions`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transactions {
    pub transactions: Vec<Transaction>,
    #[serde(default)]
    pub hal_links: Vec<serde_json::Value>,
}

/// A transaction on a real account; `status` is ISO 20022's (`ACSC`
/// settled, `RJCT` rejected, `ACSP`/`PDNG`/`ACCP`/`RCVD`/… in progress).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transaction {
    pub transaction_id: String,
    pub end_to_end_identifier: String,
    pub transaction_reference: String,
    #[serde(with = "time::serde::rfc3339")]
    pub transaction_time: time::OffsetDateTime,
    pub status: String,
    /// `CRDT` or `DBIT`.
    pub debit_credit_code: String,
    pub amount: TransactionAmount,
    pub counterpart_account: CounterpartAccount,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransactionAmount {
    pub instructed_amount: f64,
    pub currency: String,
}

/// A webhook's envelope; lendhub answers `{"Nonce": <the same>}`, signed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Webhook {
    #[serde(rename = "Type")]
    pub kind: String,
    pub version: u32,
    pub payload: serde_json::Value,
    pub nonce: i64,
}

pub const TRANSACTION_SETTLED: &str = "TransactionSettled";
pub const TRANSACTION_REJECTED: &str = "TransactionRejected";

/// What lendhub reads of a `TransactionSettled` (v6) or
/// `TransactionRejected` (v2) payload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TransactionPayload {
    pub transaction_id: String,
    pub status: String,
    pub end_to_end_transaction_id: String,
    pub amount: f64,
    /// `Credit` or `Debit`.
    pub debit_credit_code: String,
    #[serde(default)]
    pub is_return: bool,
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub timestamp_settled: Option<time::OffsetDateTime>,
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub timestamp_modified: Option<time::OffsetDateTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pence_cross_as_decimal_pounds_exactly() {
        for p in [0, 1, 9, 10, 99, 100, 123_456, 1_000_000, 99_999_999_999] {
            let written = serde_json::to_string(&pounds(Money::pence(p))).unwrap();
            let read: f64 = serde_json::from_str(&written).unwrap();
            assert_eq!(pence(read), Some(Money::pence(p)), "{p} as {written}");
        }
        assert_eq!(
            serde_json::to_string(&pounds(Money::pence(123_456))).unwrap(),
            "1234.56"
        );
        assert_eq!(pence(0.001), None);
    }

    #[test]
    fn the_published_settled_example_reads() {
        let webhook: Webhook = serde_json::from_str(
            r#"{"Type":"TransactionSettled","Version":6,"Payload":{"TransactionId":"d9162680-7d35-7994-4e38-fa80716899a2","Status":"Settled","Scheme":"FasterPayments","EndToEndTransactionId":"05726acd06dc","Amount":88.52,"TimestampSettled":"2025-04-19T10:03:00.964Z","TimestampCreated":"2025-04-19T10:01:05.101Z","CurrencyCode":"GBP","DebitCreditCode":"Debit","Reference":"51dcf7ba480e61c5a6","IsReturn":false,"Account":{"IBAN":"GB00CUBK11223312345678"},"CounterpartAccount":{"BBAN":"CUBK44556687654321"},"ActualEndToEndTransactionId":"e6e7ab2a97d1"},"Nonce":949893874}"#,
        )
        .unwrap();
        let payload: TransactionPayload = serde_json::from_value(webhook.payload).unwrap();
        assert_eq!(webhook.kind, TRANSACTION_SETTLED);
        assert_eq!(payload.end_to_end_transaction_id, "05726acd06dc");
        assert_eq!(pence(payload.amount), Some(Money::pence(8852)));
        assert!(payload.timestamp_settled.is_some());
    }
}
