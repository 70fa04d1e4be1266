//! How the ledger moves an account: its status and next review as its
//! transfers leave it, and the first review of an account just opened. Here,
//! not in `account`, so the account's own module needs nothing of the
//! ledger's and the ledger's needs only the account.

use time::OffsetDateTime;

use super::account::{Account, AccountStatus, Moved};
use super::ledger;
use crate::ids::{AccountId, HubId, SubAccountId};
use crate::ledger::transfer::Transfer;
use crate::lending::application::{Application, Decision};
use crate::money::Money;

impl Account {
    /// The account as its ledger leaves it at `now`: settled once nothing is
    /// owed; in arrears while an instalment due is unpaid, performing
    /// otherwise; forborne and closed accounts are not moved by the clock,
    /// and a settled one only when it is owed again (a refund). The new account and what moved, if its status changed;
    /// `next_review` is brought up to date either way.
    pub fn reviewed(
        &self,
        transfers: &[Transfer],
        now: OffsetDateTime,
    ) -> Option<(Self, Option<Moved>)> {
        let balance = ledger::balance(self, transfers, now)?;
        let (status, moved) = match self.status {
            // Owed again after settling: a refund of a payment that settled
            // it, or an adjustment against the borrower.
            AccountStatus::Settled if balance.payoff > Money::ZERO => {
                let reopened = if balance.arrears > Money::ZERO {
                    AccountStatus::InArrears
                } else {
                    AccountStatus::Performing
                };
                (reopened, Some(Moved::Updated))
            }
            AccountStatus::Forborne | AccountStatus::Settled | AccountStatus::Closed => {
                (self.status, None)
            }
            _ if balance.payoff == Money::ZERO => (AccountStatus::Settled, Some(Moved::Settled)),
            AccountStatus::Performing if balance.arrears > Money::ZERO => {
                (AccountStatus::InArrears, Some(Moved::Updated))
            }
            AccountStatus::InArrears if balance.arrears == Money::ZERO => {
                (AccountStatus::Performing, Some(Moved::Updated))
            }
            unchanged => (unchanged, None),
        };
        let next_review = match status {
            AccountStatus::Performing => ledger::schedule(self)
                .into_iter()
                .filter_map(|i| late_from(i.due_on))
                .find(|late| *late > now),
            _ => None,
        };
        Some((
            Self {
                status,
                next_review,
                ..self.clone()
            },
            moved,
        ))
    }

    /// The account a disbursement opens; `None` if the decision carries no
    /// signed offer.
    pub fn open(
        id: AccountId,
        application: &Application,
        decision: &Decision,
        payout_bank: &str,
        disbursement_id: String,
        now: OffsetDateTime,
    ) -> Option<Self> {
        let terms = decision.verdict.offer.clone()?;
        Some(Self {
            id,
            owner: application.owner.clone(),
            application_id: application.id.clone(),
            decision_id: decision.id.clone(),
            reference: application.reference.clone(),
            sub_account_id: application
                .introduction_id
                .as_deref()
                .and_then(SubAccountId::parse),
            partner_ref: application.partner_ref.clone(),
            company_number: application.company_number.clone(),
            company_name: application.company_name.clone(),
            status: AccountStatus::Performing,
            terms,
            payout_bank: payout_bank.to_owned(),
            disbursement_id,
            opened_at: now,
            next_review: None,
            arrangements: Vec::new(),
        })
        .map(|a| {
            let first = ledger::schedule(&a)
                .first()
                .and_then(|i| late_from(i.due_on));
            Self {
                next_review: first,
                ..a
            }
        })
    }
}

/// When an instalment due on `due_on` is late if unpaid: the start of the
/// next day (the borrower has the whole due day; a scheduled collection
/// initiated that morning settles within it).
fn late_from(due_on: time::Date) -> Option<OffsetDateTime> {
    due_on.next_day().map(|d| d.midnight().assume_utc())
}
