//! The double-entry ledger's storage (issue #47): transfers with their
//! postings, written once and never changed, and each ledger account's
//! running totals beside them. The database refuses a transfer whose
//! postings do not balance, and any UPDATE or DELETE of either.

use async_trait::async_trait;
use lendhub_domain::ledger::book::Totals;
use lendhub_domain::ledger::chart::LedgerAccount;
use lendhub_domain::ledger::transfer::Transfer;

use crate::error::StoreError;

/// A ledger write, in the commit of the change it records.
#[derive(Clone, Debug)]
pub enum LedgerWrite {
    /// A transfer and its postings, and the totals they move. A post or a
    /// void also gives back what its pending transfer held.
    Post(Transfer),
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
}
