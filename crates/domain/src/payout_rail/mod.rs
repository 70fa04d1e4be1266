//! What lendhub pays out over the payout rail (Faster Payments through the
//! lender's clearing bank, `docs/decisions.md`): every outbound payment is
//! recorded under its end-to-end id before it is sent, so the rail's
//! confirmation, which names only that id, finds what it confirms; and the
//! rail's answers, in lendhub's words.

pub mod clearbank;
pub mod modulus;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::money::Money;
use crate::open_banking::test_accounts;
use crate::tenant::Tenant;

/// What an outbound payment pays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A loan's principal to the borrower; the subject is the application.
    Disbursement,
    /// A refunded payment's money back to the account that paid; the
    /// subject is the payment.
    Refund,
    /// A sub-account's revenue share for a month; the subject is the
    /// payout.
    Payout,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Disbursement => "disbursement",
            Kind::Refund => "refund",
            Kind::Payout => "payout",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "disbursement" => Some(Kind::Disbursement),
            "refund" => Some(Kind::Refund),
            "payout" => Some(Kind::Payout),
            _ => None,
        }
    }
}

/// One outbound payment, recorded in the commit that first sends it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RailPayment {
    /// Unique per payment, at most 35 characters: the rail's end-to-end
    /// identification and its duplicate check (the intent's id).
    pub end_to_end_id: String,
    pub owner: Tenant,
    pub kind: Kind,
    /// What the payment is for: an application's id for a disbursement.
    pub subject_id: String,
    pub amount: Money,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// How the rail ended a payment it accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The money reached the payee's bank; the rail's transaction id.
    Settled {
        transaction_id: String,
        at: OffsetDateTime,
    },
    /// The payee's bank (or the scheme) refused it, with the ISO 20022 or
    /// the rail's own cancellation code.
    Rejected { code: String, at: OffsetDateTime },
}

/// A rejection's reason, as the application's `funding_failure_reason`
/// names it: the codes a partner can act on by name, the rest by the
/// rail's code.
pub fn reason(code: &str) -> String {
    match code {
        "AC07" => "account_closed".to_owned(),
        "AC03" | "AC04" | "PY01" | "InvalidAccount" => "account_unknown".to_owned(),
        "AC06" => "account_stopped".to_owned(),
        "CB_AccountNameAndNumberMismatch" | "CB_AccountNameInvalid" => "name_mismatch".to_owned(),
        "CB_FailedModulusCheck" => "account_unknown".to_owned(),
        other => format!("rejected_by_bank:{other}"),
    }
}

/// The sort code and account number (14 digits) a payee given as
/// `payee_bank` is paid at: the account the applicant shared, or, for the
/// test banks of earlier releases (`test_bank_strong`, …), the model
/// bank's test account that replaced it.
pub fn payee_account(payee_bank: &str) -> Option<String> {
    if payee_bank.len() == 14 && payee_bank.bytes().all(|b| b.is_ascii_digit()) {
        return Some(payee_bank.to_owned());
    }
    let key = payee_bank.strip_prefix("test_bank_")?;
    test_accounts::find(key).map(|a| a.sort_code_account_number.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payees_are_fourteen_digits_or_a_test_bank_of_earlier_releases() {
        assert_eq!(
            payee_account("04000410000010").as_deref(),
            Some("04000410000010")
        );
        assert_eq!(
            payee_account("test_bank_closed").as_deref(),
            Some(test_accounts::CLOSED)
        );
        assert_eq!(payee_account("test_bank_nowhere"), None);
        assert_eq!(payee_account("0400041000000"), None);
        assert_eq!(payee_account(""), None);
    }

    #[test]
    fn a_closed_account_reads_as_before_and_unknown_codes_keep_their_name() {
        assert_eq!(reason("AC07"), "account_closed");
        assert_eq!(reason("MS03"), "rejected_by_bank:MS03");
    }
}
