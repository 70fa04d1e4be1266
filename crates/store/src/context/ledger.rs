//! The double-entry ledger's storage (issue #47): transfers with their
//! postings, written once and never changed, and each ledger account's
//! running totals beside them. The database refuses a transfer whose
//! postings do not balance, and any UPDATE or DELETE of either.

use async_trait::async_trait;
use lendhub_domain::ids::AccountId;
use lendhub_domain::ledger::book::Totals;
use lendhub_domain::ledger::chart::LedgerAccount;
use lendhub_domain::ledger::reconciliation::{Item, Report};
use lendhub_domain::ledger::transfer::Transfer;
use time::Date;

use crate::error::StoreError;

/// A ledger write, in the commit of the change it records.
#[derive(Clone, Debug)]
pub enum LedgerWrite {
    /// A transfer and its postings, and the totals they move. A post or a
    /// void also gives back what its pending transfer held.
    Post(Transfer),
    /// A reconciliation item, unless the day's earlier run found it.
    ReconciliationItem(Item),
    /// Reconcile `day` now (again, if it ran): `lendhub reconcile`.
    RequestReconciliation { day: Date, at_ms: i64 },
    /// Reconcile `day` at `due_ms`, unless it is already scheduled.
    ScheduleReconciliation { day: Date, due_ms: i64 },
    /// The run that answered the request made at `requested_at_ms`.
    Reconciled {
        report: Report,
        requested_at_ms: i64,
        at_ms: i64,
    },
}

/// A day's reconciliation, asked for or scheduled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReconciliationRun {
    pub requested_at_ms: i64,
    pub done_at_ms: Option<i64>,
    pub report: Option<Report>,
}

/// Where a page of a loan's posted transfers starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoanPage {
    /// The newest.
    Newest,
    /// Older than the transfer made at `at_ms` with id `id`.
    Older { at_ms: i64, id: String },
    /// Newer than the transfer made at `at_ms` with id `id`.
    Newer { at_ms: i64, id: String },
}

/// A ledger account's running totals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountTotals {
    pub account: LedgerAccount,
    pub posted: Totals,
    pub pending: Totals,
}

#[async_trait]
pub trait LedgerStore: Send + Sync {
    /// Every ledger account's running totals, in name order.
    async fn ledger_totals(&self) -> Result<Vec<AccountTotals>, StoreError>;

    /// Every ledger account's posted totals from the transfers made before
    /// `before_ms`, in name order (a trial balance as of a day).
    async fn ledger_totals_before(
        &self,
        before_ms: i64,
    ) -> Result<Vec<(LedgerAccount, Totals)>, StoreError>;

    /// The transfer `id`, as written.
    async fn ledger_transfer(&self, id: &str) -> Result<Option<Transfer>, StoreError>;

    /// Every transfer touching one of `loan`'s accounts, oldest first.
    async fn loan_transfers(&self, loan: &AccountId) -> Result<Vec<Transfer>, StoreError>;

    /// Up to `limit` of `loan`'s posted transfers (single or post) from
    /// `from`, in the direction it reads: newest first, or oldest first
    /// for `Newer`. Read from an index in that order, at any size.
    async fn loan_posted(
        &self,
        loan: &AccountId,
        from: &LoanPage,
        limit: i64,
    ) -> Result<Vec<Transfer>, StoreError>;

    /// `loan`'s posted transfers made in the millisecond `at_ms`.
    async fn loan_posted_at(
        &self,
        loan: &AccountId,
        at_ms: i64,
    ) -> Result<Vec<Transfer>, StoreError>;

    /// The transfers known at the bank by `end_to_end_id`, oldest first.
    async fn transfers_known_as(&self, end_to_end_id: &str) -> Result<Vec<Transfer>, StoreError>;

    /// Days due to be reconciled by `now_ms`, and when each was asked for.
    async fn due_reconciliations(
        &self,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<(Date, i64)>, StoreError>;

    /// `day`'s run, if it was asked for or scheduled.
    async fn reconciliation_run(&self, day: Date) -> Result<Option<ReconciliationRun>, StoreError>;

    /// The reconciliation items found for `day`.
    async fn reconciliation_items_of(&self, day: Date) -> Result<Vec<Item>, StoreError>;

    /// Up to `limit` reconciliation items: open ones first, newest day first.
    async fn reconciliation_items(&self, limit: i64) -> Result<Vec<Item>, StoreError>;

    /// The transfers touching `account` made in `[from_ms, to_ms)`, oldest
    /// first (a day's movements, for reconciliation).
    async fn account_transfers_between(
        &self,
        account: &LedgerAccount,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<Transfer>, StoreError>;
}
