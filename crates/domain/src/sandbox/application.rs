//! The sandbox application and its state machine (see docs/guide/src/state-machines.md).
//!
//! ```text
//! create ─┬─> approved ──accept(bank_settle)──> funded ──repaid in full──> repaid
//!         │      │                                 ▲
//!         │      └─accept(bank_fail)─> funding_failed ─accept(bank_settle)─┘
//!         │                                 └─accept(bank_fail)─> funding_failed
//!         ├─> referred ──underwriter, 24 h later──> approved | declined   (accept → 409 meanwhile)
//!         └─> declined   (accept → 409)
//! ```

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::money::Money;
use crate::sandbox::decisioning::{Decision, Outcome};
use crate::sandbox::ids::{ApplicationId, PaymentId};
use crate::sandbox::payment::{BankAccount, Direction, Payment, PaymentStatus, RepaymentRequest};
use crate::tenant::Tenant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApplicationStatus {
    Approved,
    Referred,
    Declined,
    Funded,
    FundingFailed,
    Repaid,
}

impl ApplicationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ApplicationStatus::Approved => "approved",
            ApplicationStatus::Referred => "referred",
            ApplicationStatus::Declined => "declined",
            ApplicationStatus::Funded => "funded",
            ApplicationStatus::FundingFailed => "funding_failed",
            ApplicationStatus::Repaid => "repaid",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Application {
    pub id: ApplicationId,
    pub owner: Tenant,
    pub company_number: String,
    pub company_name: String,
    pub amount_pence: Money,
    pub status: ApplicationStatus,
    pub decision: Decision,
    #[serde(with = "time::serde::rfc3339")]
    pub decided_at: OffsetDateTime,
    /// The latest disbursement attempt.
    pub funding: Option<Payment>,
    /// What the borrower still owes; zero until funded.
    pub outstanding_pence: Money,
    /// Optimistic-concurrency version, bumped on every change.
    pub version: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TransitionError {
    #[error("an application in status {} cannot be accepted", .0.as_str())]
    NotAcceptable(ApplicationStatus),
    #[error("the offer expired at {0}; create a new application")]
    OfferExpired(OffsetDateTime),
    #[error("an application in status {} takes no repayments", .0.as_str())]
    NotFunded(ApplicationStatus),
    #[error("the repayment of {requested} pence exceeds the {outstanding} pence outstanding")]
    ExceedsOutstanding { requested: i64, outstanding: i64 },
    #[error("only a referred application is settled by review, not one in status {}", .0.as_str())]
    NotReferred(ApplicationStatus),
    #[error("the review falls due at {0}")]
    ReviewNotDue(OffsetDateTime),
}

impl Application {
    pub fn new(
        id: ApplicationId,
        owner: Tenant,
        company_number: String,
        amount_pence: Money,
        decision: Decision,
        now: OffsetDateTime,
    ) -> Self {
        let status = match decision.outcome {
            Outcome::Approved => ApplicationStatus::Approved,
            Outcome::Referred => ApplicationStatus::Referred,
            Outcome::Declined => ApplicationStatus::Declined,
        };
        Self {
            id,
            owner,
            company_name: crate::sandbox::fixtures::company_name(&company_number),
            company_number,
            amount_pence,
            status,
            decision,
            decided_at: now,
            funding: None,
            outstanding_pence: Money::ZERO,
            version: 1,
            created_at: now,
            updated_at: now,
        }
    }

    /// Offers lapse 30 days after the decision.
    pub fn offer_expires_at(&self) -> Option<OffsetDateTime> {
        self.decision
            .offer
            .as_ref()
            .map(|_| self.decided_at + time::Duration::days(30))
    }

    /// When the simulated underwriter settles a referred application: a fixed
    /// delay after its decision. `None` for any other status.
    pub fn review_due_at(&self) -> Option<OffsetDateTime> {
        (self.status == ApplicationStatus::Referred)
            .then(|| self.decided_at + crate::sandbox::decisioning::UNDERWRITING_DELAY)
    }

    /// The underwriter's settlement of a referred application, at `now` (on
    /// the owner's clock, at or after [`Self::review_due_at`]). The new
    /// decision is dated when the review fell due, whenever it is processed,
    /// so the outcome and its offer's expiry do not depend on when a worker
    /// got to it.
    pub fn settle_referral(&self, now: OffsetDateTime) -> Result<Application, TransitionError> {
        let due = self
            .review_due_at()
            .ok_or(TransitionError::NotReferred(self.status))?;
        if now < due {
            return Err(TransitionError::ReviewNotDue(due));
        }
        let decision =
            crate::sandbox::decisioning::review(&self.company_number, self.amount_pence.as_pence());
        let mut next = self.clone();
        next.status = match decision.outcome {
            Outcome::Approved => ApplicationStatus::Approved,
            Outcome::Declined => ApplicationStatus::Declined,
            // The review never refers again; keep the invariant explicit.
            Outcome::Referred => ApplicationStatus::Referred,
        };
        next.decision = decision;
        next.decided_at = due;
        Ok(next.touched(now))
    }

    /// Accepting the offer disburses it to the simulated bank account.
    pub fn accept(
        &self,
        bank: BankAccount,
        payment_id: PaymentId,
        now: OffsetDateTime,
    ) -> Result<Application, TransitionError> {
        if !matches!(
            self.status,
            ApplicationStatus::Approved | ApplicationStatus::FundingFailed
        ) {
            return Err(TransitionError::NotAcceptable(self.status));
        }
        if let Some(expires_at) = self.offer_expires_at().filter(|at| now > *at) {
            return Err(TransitionError::OfferExpired(expires_at));
        }
        let amount = self
            .decision
            .offer
            .as_ref()
            .map_or(self.amount_pence, |o| o.amount_pence);
        let failure = bank.disbursement_failure();
        let funding = Payment {
            id: payment_id,
            owner: self.owner.clone(),
            application_id: self.id.clone(),
            direction: Direction::Disbursement,
            amount_pence: amount,
            status: if failure.is_some() {
                PaymentStatus::Failed
            } else {
                PaymentStatus::Settled
            },
            failure_reason: failure,
            bank_account: Some(bank),
            created_at: now,
        };
        let mut next = self.clone();
        if failure.is_some() {
            next.status = ApplicationStatus::FundingFailed;
        } else {
            next.status = ApplicationStatus::Funded;
            next.outstanding_pence = self
                .decision
                .offer
                .as_ref()
                .map_or(amount, |o| o.total_repayable_pence);
        }
        next.funding = Some(funding);
        Ok(next.touched(now))
    }

    /// Applies a repayment; a failed collection leaves the balance unchanged.
    pub fn repay(
        &self,
        request: RepaymentRequest,
        payment_id: PaymentId,
        now: OffsetDateTime,
    ) -> Result<(Application, Payment), TransitionError> {
        if self.status != ApplicationStatus::Funded {
            return Err(TransitionError::NotFunded(self.status));
        }
        let exceeds = TransitionError::ExceedsOutstanding {
            requested: request.amount_pence.as_pence(),
            outstanding: self.outstanding_pence.as_pence(),
        };
        let Some(remaining) = self
            .outstanding_pence
            .checked_sub(request.amount_pence)
            .filter(|r| !r.is_negative())
        else {
            return Err(exceeds);
        };
        let failure = crate::sandbox::payment::repayment_failure(request.amount_pence);
        let payment = Payment {
            id: payment_id,
            owner: self.owner.clone(),
            application_id: self.id.clone(),
            direction: Direction::Collection,
            amount_pence: request.amount_pence,
            status: if failure.is_some() {
                PaymentStatus::Failed
            } else {
                PaymentStatus::Settled
            },
            failure_reason: failure,
            bank_account: None,
            created_at: now,
        };
        let mut next = self.clone();
        if failure.is_none() {
            next.outstanding_pence = remaining;
            if remaining.is_zero() {
                next.status = ApplicationStatus::Repaid;
            }
        }
        Ok((next.touched(now), payment))
    }

    fn touched(mut self, now: OffsetDateTime) -> Self {
        self.version += 1;
        self.updated_at = now;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::decisioning::decide;
    use crate::sandbox::payment::FailureReason;

    fn app(company: &str, amount: i64) -> Application {
        let now = OffsetDateTime::UNIX_EPOCH;
        Application::new(
            crate::sandbox::ids::SandboxId::generate(0, next_random()),
            Tenant::sandbox_client("pk_test_a"),
            company.into(),
            Money::pence(amount),
            decide(company, amount),
            now,
        )
    }

    /// Distinct ids for one test run, without a random generator.
    fn next_random() -> u128 {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        u128::from(NEXT.fetch_add(1, Ordering::Relaxed))
    }

    fn id() -> crate::sandbox::ids::PaymentId {
        crate::sandbox::ids::SandboxId::generate(0, next_random())
    }

    const NOW: OffsetDateTime = OffsetDateTime::UNIX_EPOCH;

    #[test]
    fn settle_funds_and_sets_the_balance_to_the_total_repayable() {
        let a = app("00000401", 1_000_000);
        let funded = a.accept(BankAccount::BankSettle, id(), NOW).unwrap();
        assert_eq!(funded.status, ApplicationStatus::Funded);
        assert_eq!(
            funded.outstanding_pence,
            a.decision.offer.as_ref().unwrap().total_repayable_pence
        );
        assert_eq!(funded.version, 2);
        assert_eq!(
            funded.funding.as_ref().unwrap().status,
            PaymentStatus::Settled
        );
    }

    #[test]
    fn bank_fail_can_be_accepted_again() {
        let a = app("00000401", 1_000_000);
        let failed = a.accept(BankAccount::BankFail, id(), NOW).unwrap();
        assert_eq!(failed.status, ApplicationStatus::FundingFailed);
        assert_eq!(
            failed.funding.as_ref().unwrap().failure_reason,
            Some(FailureReason::BankUnavailable)
        );
        assert_eq!(failed.outstanding_pence, Money::ZERO);
        let again = failed.accept(BankAccount::BankSettle, id(), NOW).unwrap();
        assert_eq!(again.status, ApplicationStatus::Funded);
    }

    #[test]
    fn declined_referred_and_funded_cannot_be_accepted() {
        for company in ["00000402", "00000403"] {
            let a = app(company, 1_000_000);
            assert!(matches!(
                a.accept(BankAccount::BankSettle, id(), NOW),
                Err(TransitionError::NotAcceptable(_))
            ));
        }
        let funded = app("00000401", 1_000_000)
            .accept(BankAccount::BankSettle, id(), NOW)
            .unwrap();
        assert_eq!(
            funded.accept(BankAccount::BankSettle, id(), NOW),
            Err(TransitionError::NotAcceptable(ApplicationStatus::Funded))
        );
    }

    #[test]
    fn repayments_reduce_the_balance_until_repaid() {
        let funded = app("00000401", 1_000_000)
            .accept(BankAccount::BankSettle, id(), NOW)
            .unwrap();
        let owed = funded.outstanding_pence;
        assert!(matches!(
            funded.repay(
                RepaymentRequest {
                    amount_pence: owed.checked_add(Money::pence(1)).unwrap()
                },
                id(),
                NOW
            ),
            Err(TransitionError::ExceedsOutstanding { .. })
        ));
        let (after, p) = funded
            .repay(
                RepaymentRequest {
                    amount_pence: Money::pence(10_000),
                },
                id(),
                NOW,
            )
            .unwrap();
        assert_eq!(p.status, PaymentStatus::Settled);
        assert_eq!(
            after.outstanding_pence,
            owed.checked_sub(Money::pence(10_000)).unwrap()
        );
        let (unchanged, failed) = after
            .repay(
                RepaymentRequest {
                    amount_pence: Money::pence(4001),
                },
                id(),
                NOW,
            )
            .unwrap();
        assert_eq!(
            failed.failure_reason,
            Some(FailureReason::InsufficientFunds)
        );
        assert_eq!(unchanged.outstanding_pence, after.outstanding_pence);
        let (done, _) = unchanged
            .repay(
                RepaymentRequest {
                    amount_pence: unchanged.outstanding_pence,
                },
                id(),
                NOW,
            )
            .unwrap();
        assert_eq!(done.status, ApplicationStatus::Repaid);
        assert!(matches!(
            done.repay(
                RepaymentRequest {
                    amount_pence: Money::pence(1)
                },
                id(),
                NOW
            ),
            Err(TransitionError::NotFunded(_))
        ));
    }

    #[test]
    fn an_offer_lapses_thirty_days_after_the_decision() {
        let a = app("00000401", 1_000_000);
        let last_day = NOW + time::Duration::days(30);
        assert!(a.accept(BankAccount::BankSettle, id(), last_day).is_ok());
        let late = last_day + time::Duration::seconds(1);
        assert!(matches!(
            a.accept(BankAccount::BankSettle, id(), late),
            Err(TransitionError::OfferExpired(_))
        ));
    }

    #[test]
    fn a_referral_settles_a_day_after_its_decision() {
        let referred = app("00000402", 1_000_000);
        let due = NOW + time::Duration::hours(24);
        assert_eq!(referred.review_due_at(), Some(due));
        assert_eq!(
            referred.settle_referral(due - time::Duration::seconds(1)),
            Err(TransitionError::ReviewNotDue(due))
        );
        let later = due + time::Duration::days(3);
        let approved = referred.settle_referral(later).unwrap();
        assert_eq!(approved.status, ApplicationStatus::Approved);
        assert_eq!(approved.decided_at, due, "dated when the review fell due");
        assert_eq!(approved.updated_at, later);
        assert_eq!(approved.version, referred.version + 1);
        assert_eq!(approved.review_due_at(), None);
        assert_eq!(
            approved.offer_expires_at(),
            Some(due + time::Duration::days(30))
        );
        assert!(
            approved
                .accept(BankAccount::BankSettle, id(), later)
                .is_ok()
        );
        assert_eq!(
            approved.settle_referral(later),
            Err(TransitionError::NotReferred(ApplicationStatus::Approved))
        );
        let declined = app("00000407", 1_000_000).settle_referral(due).unwrap();
        assert_eq!(declined.status, ApplicationStatus::Declined);
        assert!(declined.decision.offer.is_none());
        assert_eq!(app("00000401", 1_000_000).review_due_at(), None);
    }

    #[test]
    fn approved_but_unfunded_takes_no_repayment() {
        let a = app("00000401", 1_000_000);
        assert_eq!(
            a.repay(
                RepaymentRequest {
                    amount_pence: Money::pence(1)
                },
                id(),
                NOW
            )
            .map(|_| ()),
            Err(TransitionError::NotFunded(ApplicationStatus::Approved))
        );
    }
}
