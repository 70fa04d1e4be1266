//! The ledger's reads (`crate::context::ledger`): running totals, posted
//! totals as of a moment, and one transfer's JSON body.

use async_trait::async_trait;
use lendhub_domain::ids::{AccountId, HubId};
use lendhub_domain::ledger::book::Totals;
use lendhub_domain::ledger::chart::LedgerAccount;
use lendhub_domain::ledger::reconciliation::Item;
use lendhub_domain::ledger::transfer::Transfer;
use lendhub_domain::money::Money;
use time::Date;

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

pub(crate) fn day(raw: &str) -> Result<Date, StoreError> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    Date::parse(raw, format).map_err(|e| StoreError::Internal(format!("{raw} is no day: {e}")))
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

    async fn loan_transfers(&self, loan: &AccountId) -> Result<Vec<Transfer>, StoreError> {
        self.all(sql::LOAN_TRANSFERS, &params![loan.as_str()], |r| r.json(0))
            .await
    }

    async fn loan_posted(
        &self,
        loan: &AccountId,
        from: &LoanPage,
        limit: i64,
    ) -> Result<Vec<Transfer>, StoreError> {
        let loan = loan.as_str();
        match from {
            LoanPage::Newest => {
                self.all(sql::LOAN_POSTED_NEWEST, &params![loan, limit], |r| {
                    r.json(0)
                })
                .await
            }
            LoanPage::Older { at_ms, id } => {
                let params = params![loan, *at_ms, id.as_str(), limit];
                self.all(sql::LOAN_POSTED_OLDER, &params, |r| r.json(0))
                    .await
            }
            LoanPage::Newer { at_ms, id } => {
                let params = params![loan, *at_ms, id.as_str(), limit];
                self.all(sql::LOAN_POSTED_NEWER, &params, |r| r.json(0))
                    .await
            }
        }
    }

    async fn loan_posted_at(
        &self,
        loan: &AccountId,
        at_ms: i64,
    ) -> Result<Vec<Transfer>, StoreError> {
        let params = params![loan.as_str(), at_ms];
        self.all(sql::LOAN_POSTED_AT, &params, |r| r.json(0)).await
    }

    async fn transfers_known_as(&self, end_to_end_id: &str) -> Result<Vec<Transfer>, StoreError> {
        self.all(sql::BY_REFERENCE, &params![end_to_end_id], |r| r.json(0))
            .await
    }

    async fn due_reconciliations(
        &self,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<(Date, i64)>, StoreError> {
        self.all(sql::DUE_RUNS, &params![now_ms, i64::from(limit)], |r| {
            Ok((day(&r.get::<String>(0)?)?, r.get(1)?))
        })
        .await
    }

    async fn reconciliation_run(&self, day: Date) -> Result<Option<ReconciliationRun>, StoreError> {
        let day = day.to_string();
        self.one(sql::RUN, &params![&day], |r| {
            let body: Option<String> = r.get(2)?;
            Ok(ReconciliationRun {
                requested_at_ms: r.get(0)?,
                done_at_ms: r.get(1)?,
                report: body
                    .map(|b| serde_json::from_str(&b))
                    .transpose()
                    .map_err(|e| StoreError::Internal(format!("a reconciliation report: {e}")))?,
            })
        })
        .await
    }

    async fn reconciliation_items_of(&self, day: Date) -> Result<Vec<Item>, StoreError> {
        let day = day.to_string();
        self.all(sql::ITEMS_OF_DAY, &params![&day], |r| r.json(0))
            .await
    }

    async fn reconciliation_items(&self, limit: i64) -> Result<Vec<Item>, StoreError> {
        self.all(sql::RECENT_ITEMS, &params![limit], |r| r.json(0))
            .await
    }

    async fn account_transfers_between(
        &self,
        account: &LedgerAccount,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<Transfer>, StoreError> {
        let name = account.to_string();
        self.all(
            sql::TRANSFERS_OF_ACCOUNT_BETWEEN,
            &params![from_ms, to_ms, &name],
            |r| r.json(0),
        )
        .await
    }
}
