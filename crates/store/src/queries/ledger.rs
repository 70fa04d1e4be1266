//! The ledger's reads (`crate::context::ledger`): running totals, posted
//! totals as of a moment, and one transfer's JSON body.

use async_trait::async_trait;
use lendhub_domain::ledger::book::Totals;
use lendhub_domain::ledger::chart::LedgerAccount;
use lendhub_domain::ledger::transfer::Transfer;
use lendhub_domain::money::Money;

use crate::context::ledger::*;
use crate::error::StoreError;
use crate::exec::{Backend, Row};
use crate::params;
use crate::sql::ledger as sql;

fn account(row: &Row) -> Result<LedgerAccount, StoreError> {
    let name: String = row.get(0)?;
    LedgerAccount::parse(&name)
        .ok_or_else(|| StoreError::Internal(format!("{name} is no ledger account")))
}

fn totals(row: &Row, from: usize) -> Result<Totals, StoreError> {
    Ok(Totals {
        debits: Money::pence(row.get(from)?),
        credits: Money::pence(row.get(from + 1)?),
    })
}

#[async_trait]
impl<B: Backend> LedgerStore for B {
    async fn ledger_totals(&self) -> Result<Vec<AccountTotals>, StoreError> {
        self.all(sql::TOTALS, &[], |row| {
            Ok(AccountTotals {
                account: account(row)?,
                posted: totals(row, 1)?,
                pending: totals(row, 3)?,
            })
        })
        .await
    }

    async fn ledger_totals_before(
        &self,
        before_ms: i64,
    ) -> Result<Vec<(LedgerAccount, Totals)>, StoreError> {
        self.all(sql::POSTED_BEFORE, &params![before_ms], |row| {
            Ok((account(row)?, totals(row, 1)?))
        })
        .await
    }

    async fn ledger_transfer(&self, id: &str) -> Result<Option<Transfer>, StoreError> {
        self.one(sql::TRANSFER, &params![id], |r| r.json(0)).await
    }
}
