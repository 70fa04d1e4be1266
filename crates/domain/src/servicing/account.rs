//! The servicing account a funded loan opens (issue #15 opens it; #16
//! services it): the terms the borrower signed, frozen, and where the money
//! went.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::ids::{AccountId, ApplicationId, DecisionId, SubAccountId};
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

/// `{company_number}/{live|test}`: see `Account::borrower`.
pub fn borrower_key(company_number: &str, livemode: bool) -> String {
    format!(
        "{company_number}/{}",
        if livemode { "live" } else { "test" }
    )
}
