//! A servicing account as the API shows it: its borrower, balance, upcoming
//! instalments and ledger entries.

use lendhub_domain::ids::HubId;
use lendhub_domain::ledger::transfer::Transfer;
use lendhub_domain::servicing::account::Account;
use lendhub_domain::servicing::ledger;
use lendhub_domain::servicing::ledger::Instalment;
use lendhub_domain::servicing::statement::Entry;
use lendhub_domain::tenant::TenantKind;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

/// A balance beyond `i64` pence: a wrong figure is never shown instead.
#[derive(Debug, thiserror::Error)]
#[error("the balance of {0} overflows")]
pub struct BalanceOverflow(String);

#[derive(Serialize, ToSchema)]
pub struct BorrowerView {
    #[schema(example = "00000401")]
    company_number: String,
    #[schema(example = "Healthy Widgets Ltd")]
    company_name: String,
}

/// What is owed, derived from the ledger at the moment of the answer.
#[derive(Serialize, ToSchema)]
pub struct BalanceView {
    principal_outstanding_pence: i64,
    /// Daily simple interest at the signed rate, accrued and not yet paid.
    interest_accrued_pence: i64,
    /// Instalments due so far less what was repaid, when positive.
    arrears_pence: i64,
    /// What settles the account today.
    payoff_pence: i64,
    /// Paid beyond what was owed (two payments racing to settle it, or a
    /// schedule's instalment after it settled), held for the borrower:
    /// refunding the payment that overpaid hands it back.
    credit_pence: i64,
}

/// One instalment of the signed repayment schedule.
#[derive(Serialize, ToSchema)]
pub struct InstalmentView {
    number: u32,
    /// YYYY-MM-DD.
    due_date: String,
    amount_pence: i64,
}

/// A servicing account.
#[derive(Serialize, ToSchema)]
pub struct AccountView {
    #[schema(example = "acc_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "account")]
    object: &'static str,
    /// performing, in_arrears, forborne, settled or closed.
    status: &'static str,
    #[schema(example = "business_term_loan")]
    product: &'static str,
    borrower: BorrowerView,
    /// The amount disbursed.
    principal_pence: i64,
    term_months: u32,
    /// Representative APR at origination, percent.
    rate_apr: f64,
    monthly_repayment_pence: i64,
    total_repayable_pence: i64,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    disbursed_at: OffsetDateTime,
    balance: BalanceView,
    /// The partner sub-account the loan was introduced through, if any.
    sub_account_id: Option<String>,
    /// Your own attribution of the deal (`partner_ref`), from the application.
    partner_ref: Option<String>,
    application_id: String,
    decision_id: String,
    /// Yours, from the application.
    reference: Option<String>,
    /// The Faster Payments payment that paid the principal out.
    disbursement_id: String,
    /// The repayment schedule, on retrieval of one account.
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule: Option<Vec<InstalmentView>>,
    livemode: bool,
}

impl BalanceView {
    pub fn new(
        account: &Account,
        transfers: &[Transfer],
        now: OffsetDateTime,
    ) -> Result<Self, BalanceOverflow> {
        let b = ledger::balance(account, transfers, now)
            .ok_or_else(|| BalanceOverflow(account.id.to_string()))?;
        Ok(Self {
            principal_outstanding_pence: b.principal_outstanding.as_pence(),
            interest_accrued_pence: b.interest_accrued.as_pence(),
            arrears_pence: b.arrears.as_pence(),
            payoff_pence: b.payoff.as_pence(),
            credit_pence: b.credit.as_pence(),
        })
    }
}

impl AccountView {
    /// The account with its balance at `now` from `transfers`, every one
    /// of its loan's in the ledger.
    pub fn new(
        a: &Account,
        transfers: &[Transfer],
        now: OffsetDateTime,
    ) -> Result<Self, BalanceOverflow> {
        Ok(Self {
            id: a.id.as_str().to_owned(),
            object: "account",
            status: a.status.as_str(),
            product: PRODUCT,
            borrower: BorrowerView {
                company_number: a.company_number.clone(),
                company_name: a.company_name.clone(),
            },
            principal_pence: a.principal().as_pence(),
            term_months: a.terms.term_months,
            rate_apr: a.terms.apr,
            monthly_repayment_pence: a.terms.monthly_repayment_pence.as_pence(),
            total_repayable_pence: a.terms.total_repayable_pence.as_pence(),
            disbursed_at: a.opened_at,
            balance: BalanceView::new(a, transfers, now)?,
            sub_account_id: a.sub_account_id.as_ref().map(ToString::to_string),
            partner_ref: a.partner_ref.clone(),
            application_id: a.application_id.as_str().to_owned(),
            decision_id: a.decision_id.as_str().to_owned(),
            reference: a.reference.clone(),
            disbursement_id: a.disbursement_id.clone(),
            schedule: None,
            livemode: matches!(a.owner.kind(), TenantKind::Partner { livemode: true, .. }),
        })
    }

    /// As a person (the borrower) sees it: without which of the partner's
    /// sub-accounts or channels introduced the loan, which is the
    /// partners' matter.
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn for_borrower(mut self) -> Self {
        self.sub_account_id = None;
        self.partner_ref = None;
        self
    }

    pub fn with_schedule(mut self, schedule: &[Instalment]) -> Self {
        self.schedule = Some(
            schedule
                .iter()
                .map(|i| InstalmentView {
                    number: i.number,
                    due_date: i.due_on.to_string(),
                    amount_pence: i.amount.as_pence(),
                })
                .collect(),
        );
        self
    }
}

/// One ledger entry (hub seed, Resources → Ledger entry): a posted
/// transfer of the double-entry ledger that touched the loan.
#[derive(Serialize, ToSchema)]
pub struct EntryView {
    #[schema(example = "txn_01KQ3V1Y2C8WZ3R5T6Y7X819D0")]
    id: String,
    #[schema(example = "ledger_entry")]
    object: &'static str,
    account_id: String,
    /// drawdown, interest, fee, collection, return, refund or write_off.
    #[serde(rename = "type")]
    #[schema(example = "collection")]
    kind: &'static str,
    /// Signed as the borrower sees it: what they were lent, charged or
    /// handed back negative (drawdown, interest, fee, return, refund);
    /// what they paid or was given up positive (collection, write_off).
    amount_pence: i64,
    /// The payment a collection, return or refund moved money by.
    payment_id: Option<String>,
    description: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    posted_at: OffsetDateTime,
}

impl EntryView {
    pub fn new(e: &Entry) -> Self {
        Self {
            id: e.id.to_string(),
            object: "ledger_entry",
            account_id: e.account_id.to_string(),
            kind: e.kind.as_str(),
            amount_pence: e.amount.as_pence(),
            payment_id: e.payment_id.clone(),
            description: e.note.clone(),
            posted_at: e.posted_at,
        }
    }
}

/// What the account is: every account today is a term loan.
pub(crate) const PRODUCT: &str = "business_term_loan";
