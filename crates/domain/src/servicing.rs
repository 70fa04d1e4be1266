//! The servicing account a funded loan opens (issue #15 opens it; #16
//! services it): the terms the borrower signed, frozen, and where the money
//! went.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::hub_ids::{AccountId, ApplicationId, DecisionId, HubId, SubAccountId};
use crate::lending::{Application, Decision};
use crate::loan::Offer;
use crate::money::Money;
use crate::tenant::Tenant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountStatus {
    Performing,
    InArrears,
    Forborne,
    Settled,
    Closed,
}

impl AccountStatus {
    pub const ALL: [AccountStatus; 5] = [
        AccountStatus::Performing,
        AccountStatus::InArrears,
        AccountStatus::Forborne,
        AccountStatus::Settled,
        AccountStatus::Closed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AccountStatus::Performing => "performing",
            AccountStatus::InArrears => "in_arrears",
            AccountStatus::Forborne => "forborne",
            AccountStatus::Settled => "settled",
            AccountStatus::Closed => "closed",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub id: AccountId,
    pub owner: Tenant,
    pub application_id: ApplicationId,
    pub decision_id: DecisionId,
    pub reference: Option<String>,
    /// The sub-account the application was introduced through
    /// (`introduction_id`), frozen at funding.
    #[serde(default)]
    pub sub_account_id: Option<SubAccountId>,
    /// The partner's own attribution (`partner_ref`), frozen at funding.
    #[serde(default)]
    pub partner_ref: Option<String>,
    pub company_number: String,
    /// The borrower's registered name at funding.
    #[serde(default)]
    pub company_name: String,
    pub status: AccountStatus,
    /// The signed offer: principal, term, rate, repayment, total.
    pub terms: Offer,
    /// Where the principal was paid, and the Faster Payments id it went by.
    pub payout_bank: String,
    pub disbursement_id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub opened_at: OffsetDateTime,
    /// When the clock next needs to look at the account: the start of the
    /// day after the next instalment's due date, while it is performing.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub next_review: Option<OffsetDateTime>,
    /// What the lender's staff did to the account, oldest first.
    #[serde(default)]
    pub arrangements: Vec<Arrangement>,
}

/// An operator's act on an account (`lendhub accounts …`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arrangement {
    pub act: StaffAct,
    pub by: String,
    pub note: String,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaffAct {
    /// A hardship arrangement: the account is forborne.
    Forbear,
    /// The arrangement ended: the account is reviewed against its ledger.
    EndForbearance,
    /// Written off: closed.
    WriteOff,
}

/// Why a staff act does not apply.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("the account is {0:?}")]
pub struct NotApplicable(pub AccountStatus);

/// What a review changed, for the event it emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moved {
    /// performing ↔ in_arrears, or settled → owed again: `account.updated`.
    Updated,
    /// Repaid in full: `account.closed` (the seed: "facility settled in
    /// full and closed"); the status is `settled`.
    Settled,
}

impl Account {
    /// A staff act at `now`: the account it leaves (still to be reviewed
    /// against its ledger when the act ends forbearance).
    pub fn staff_act(
        &self,
        act: StaffAct,
        by: &str,
        note: &str,
        now: OffsetDateTime,
    ) -> Result<Self, NotApplicable> {
        let status = match (act, self.status) {
            (StaffAct::Forbear, AccountStatus::Performing | AccountStatus::InArrears) => {
                AccountStatus::Forborne
            }
            // Reviewed next: the ledger decides between performing and arrears.
            (StaffAct::EndForbearance, AccountStatus::Forborne) => AccountStatus::Performing,
            (
                StaffAct::WriteOff,
                AccountStatus::Performing | AccountStatus::InArrears | AccountStatus::Forborne,
            ) => AccountStatus::Closed,
            (_, status) => return Err(NotApplicable(status)),
        };
        let mut arrangements = self.arrangements.clone();
        arrangements.push(Arrangement {
            act,
            by: by.to_owned(),
            note: note.to_owned(),
            at: now,
        });
        Ok(Self {
            status,
            next_review: None,
            arrangements,
            ..self.clone()
        })
    }

    /// The account as its ledger leaves it at `now`: settled once nothing is
    /// owed; in arrears while an instalment due is unpaid, performing
    /// otherwise; forborne and closed accounts are not moved by the clock,
    /// and a settled one only when it is owed again (a refund). The new account and what moved, if its status changed;
    /// `next_review` is brought up to date either way.
    pub fn reviewed(
        &self,
        entries: &[crate::ledger::Entry],
        now: OffsetDateTime,
    ) -> Option<(Self, Option<Moved>)> {
        let balance = crate::ledger::balance(self, entries, now)?;
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
            AccountStatus::Performing => crate::ledger::schedule(self)
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
            let first = crate::ledger::schedule(&a)
                .first()
                .and_then(|i| late_from(i.due_on));
            Self {
                next_review: first,
                ..a
            }
        })
    }

    /// Whose company the account lends to, in its environment: the key a
    /// person signed in at lendhub's identity provider reads their
    /// company's accounts by, whichever partner introduced them.
    pub fn borrower(&self) -> String {
        let livemode = matches!(
            self.owner.kind(),
            crate::tenant::TenantKind::Partner { livemode: true, .. }
        );
        borrower_key(&self.company_number, livemode)
    }

    pub fn principal(&self) -> Money {
        self.terms.amount_pence
    }
}

/// When an instalment due on `due_on` is late if unpaid: the start of the
/// next day (the borrower has the whole due day; a scheduled collection
/// initiated that morning settles within it).
fn late_from(due_on: time::Date) -> Option<OffsetDateTime> {
    due_on.next_day().map(|d| d.midnight().assume_utc())
}

/// `{company_number}/{live|test}`: see `Account::borrower`.
pub fn borrower_key(company_number: &str, livemode: bool) -> String {
    format!(
        "{company_number}/{}",
        if livemode { "live" } else { "test" }
    )
}
