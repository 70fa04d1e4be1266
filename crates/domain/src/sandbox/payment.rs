//! Synthetic payments: disbursements (on accept) and collections (repayments).
//! The simulated bank accounts and the repayment test amounts live here.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::money::Money;
use crate::sandbox::ids::{ApplicationId, PaymentId};
use crate::tenant::Tenant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BankAccount {
    BankSettle,
    BankFail,
}

impl BankAccount {
    pub const ALL: [BankAccount; 2] = [BankAccount::BankSettle, BankAccount::BankFail];

    pub fn as_str(self) -> &'static str {
        match self {
            BankAccount::BankSettle => "bank_settle",
            BankAccount::BankFail => "bank_fail",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.as_str() == raw)
    }

    pub fn disbursement_failure(self) -> Option<FailureReason> {
        match self {
            BankAccount::BankSettle => None,
            BankAccount::BankFail => Some(FailureReason::BankUnavailable),
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            BankAccount::BankSettle => {
                "disbursement settles: the application becomes funded and its balance opens"
            }
            BankAccount::BankFail => {
                "disbursement fails with bank_unavailable: the application becomes funding_failed and may be accepted again"
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureReason {
    InsufficientFunds,
    PayerCancelled,
    MandateRevoked,
    BankUnavailable,
}

impl FailureReason {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureReason::InsufficientFunds => "insufficient_funds",
            FailureReason::PayerCancelled => "payer_cancelled",
            FailureReason::MandateRevoked => "mandate_revoked",
            FailureReason::BankUnavailable => "bank_unavailable",
        }
    }
}

/// Repayment amounts that fail, each with its reason; every other amount settles.
pub const REPAYMENT_TEST_AMOUNTS: [(i64, FailureReason); 4] = [
    (4001, FailureReason::InsufficientFunds),
    (4002, FailureReason::PayerCancelled),
    (4003, FailureReason::MandateRevoked),
    (4004, FailureReason::BankUnavailable),
];

pub fn repayment_failure(amount_pence: Money) -> Option<FailureReason> {
    REPAYMENT_TEST_AMOUNTS
        .iter()
        .find(|(a, _)| *a == amount_pence.as_pence())
        .map(|(_, r)| *r)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Disbursement,
    Collection,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentStatus {
    Settled,
    Failed,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Payment {
    pub id: PaymentId,
    pub owner: Tenant,
    pub application_id: ApplicationId,
    pub direction: Direction,
    pub amount_pence: Money,
    pub status: PaymentStatus,
    pub failure_reason: Option<FailureReason>,
    pub bank_account: Option<BankAccount>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RepaymentRequest {
    pub amount_pence: Money,
}
