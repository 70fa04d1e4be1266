//! Daily reconciliation (docs/guide/src/ledger.md, "Reconciliation"): for a day, each
//! environment's bank statement of the lender's funding and collection
//! accounts, read from its clearing bank as a ClearBank client reads it,
//! against what the ledger posted to those accounts. Both sides key on the
//! end-to-end id. A movement whose other side fell on another day (a
//! callback after midnight, a test clock ahead of the bank's) is looked up
//! by its id, whenever it was made, before it counts as a mismatch.
//!
//! What reconciliation can settle it does: a collection or payout the
//! bank settled whose callback was lost is posted as the callback would
//! have posted it (`payment.paid`, or the loan booked); money in that no
//! payment of lendhub's explains is held in suspense. Everything else is
//! an open item for a person. Each mismatch is kept as an item, once per
//! day however often the day is reconciled, logged as a warning, and listed
//! on the dashboard.

use std::collections::HashSet;

use lendhub_domain::clock::unix_ms;
use lendhub_domain::ids::HubId;
use lendhub_domain::ids::PaymentId;
use lendhub_domain::ledger::movements;
use lendhub_domain::ledger::reconciliation::{
    AccountReport, BankAccount, BankMovement, Finding, Item, Mismatch, Report, Resolution, compare,
    posted,
};
use lendhub_domain::money::Money;
use lendhub_domain::open_banking::pis::Progress;
use lendhub_domain::partner::credentials::Environment;
use lendhub_domain::payout_rail::Outcome;
use lendhub_domain::servicing::collection::PaymentStatus;
use lendhub_store::{CommitError, LedgerWrite, WriteSet};
use time::{Date, Duration, OffsetDateTime};

use super::FlowError;
use crate::counterparties::{PayoutRail, PerEnvironment};
use crate::flows::Context;

fn unavailable(e: impl std::fmt::Display) -> FlowError {
    FlowError::Unavailable(e.to_string())
}

/// Up to `limit` of the items reconciliation found, open ones first,
/// newest day first: the operations console's list.
pub async fn items(cx: &Context, limit: i64) -> Result<Vec<Item>, FlowError> {
    Ok(cx.ledger.reconciliation_items(limit).await?)
}

/// Reconciles `day` (UTC) for both environments, keeping each mismatch
/// as an item, and answers the report.
pub async fn reconcile(cx: &Context, day: Date) -> Result<Report, FlowError> {
    let from = day.midnight().assume_utc();
    let to = from + Duration::days(1);
    let mut accounts = Vec::new();
    for environment in Environment::ALL {
        for account in BankAccount::ALL {
            let side = Side {
                cx,
                rail: cx.rails.get(environment).as_ref(),
                environment,
                account,
                day,
            };
            accounts.push(side.reconcile(from, to).await?);
        }
    }
    let report = Report {
        date: day,
        accounts,
        ran_at: cx.clock.now(),
    };
    // What monitoring alerts on: a day the bank and the ledger disagree.
    metrics::gauge!(OPEN_ITEMS).set(report.open_items() as f64);
    Ok(report)
}

/// The open items of the day reconciled last, as `/metrics` shows them.
const OPEN_ITEMS: &str = "lendhub_reconciliation_open_items";

/// Says what the gauge is, for `/metrics`' HELP line.
pub fn describe() {
    metrics::describe_gauge!(
        OPEN_ITEMS,
        "Open reconciliation items (the bank and the ledger disagree, a person must look) on the day reconciled last."
    );
}

/// One bank account of one environment, on one day.
struct Side<'a> {
    cx: &'a Context,
    rail: &'a dyn PayoutRail,
    environment: Environment,
    account: BankAccount,
    day: Date,
}

impl Side<'_> {
    async fn reconcile(
        &self,
        from: OffsetDateTime,
        to: OffsetDateTime,
    ) -> Result<AccountReport, FlowError> {
        let Some(statement) = self
            .rail
            .statement(self.account, from, to)
            .await
            .map_err(unavailable)?
        else {
            return Ok(AccountReport {
                environment: self.environment,
                account: self.account,
                read: false,
                bank_movements: 0,
                ledger_movements: 0,
                items: Vec::new(),
            });
        };
        // A bank both environments share (the embedded model bank) shows
        // each environment's money: the other's is not this one's to match.
        let mut bank = Vec::new();
        for m in statement.into_iter().filter(|m| m.settled) {
            let other = self
                .environment_of(&m.end_to_end_id)
                .await?
                .is_some_and(|e| e != self.environment);
            if !other {
                bank.push(m);
            }
        }
        let mut ledger = self.ledger_between(from, to).await?;
        let (bank_movements, ledger_movements) = (bank.len(), ledger.len());
        // The other side of a movement may have fallen on another day.
        let in_ledger: HashSet<String> = ledger.iter().map(|(id, _)| id.clone()).collect();
        for m in bank
            .iter()
            .filter(|m| !in_ledger.contains(&m.end_to_end_id))
        {
            for t in self.cx.ledger.transfers_known_as(&m.end_to_end_id).await? {
                if let Some(amount) = posted(&t, self.account).filter(|a| *a != Money::ZERO) {
                    ledger.push((m.end_to_end_id.clone(), amount));
                }
            }
        }
        let at_bank: HashSet<String> = bank.iter().map(|m| m.end_to_end_id.clone()).collect();
        let elsewhere: HashSet<String> = ledger
            .iter()
            .map(|(id, _)| id.clone())
            .filter(|id| !at_bank.contains(id))
            .collect();
        for id in elsewhere {
            if let Some(m) = self
                .rail
                .movement(self.account, &id)
                .await
                .map_err(unavailable)?
                .filter(|m| m.settled)
            {
                bank.push(m);
            }
        }
        let mut items = Vec::new();
        for finding in compare(&bank, &ledger) {
            let movement = bank
                .iter()
                .find(|m| m.end_to_end_id == finding.end_to_end_id);
            items.push(self.settle(&finding, movement).await?);
        }
        Ok(AccountReport {
            environment: self.environment,
            account: self.account,
            read: true,
            bank_movements,
            ledger_movements,
            items,
        })
    }

    /// What the ledger posted to the account in `[from, to)` under each
    /// end-to-end id of this environment's payments.
    async fn ledger_between(
        &self,
        from: OffsetDateTime,
        to: OffsetDateTime,
    ) -> Result<Vec<(String, Money)>, FlowError> {
        let transfers = self
            .cx
            .ledger
            .account_transfers_between(&self.account.ledger(), unix_ms(from), unix_ms(to))
            .await?;
        let mut lines = Vec::new();
        for t in transfers {
            let (Some(reference), Some(amount)) = (t.reference(), posted(&t, self.account)) else {
                continue;
            };
            if amount != Money::ZERO
                && self.environment_of(reference).await? == Some(self.environment)
            {
                lines.push((reference.to_owned(), amount));
            }
        }
        Ok(lines)
    }

    /// Whose environment the money under `end_to_end_id` is in: a payout's
    /// (the rail's record) or a collection's (its payment). Money held in
    /// suspense belongs to no one, and is matched from the bank's side.
    async fn environment_of(&self, end_to_end_id: &str) -> Result<Option<Environment>, FlowError> {
        if let Some(sent) = self.cx.lending.rail_payment(end_to_end_id).await? {
            return Ok(Some(PerEnvironment::<()>::environment_of(&sent.owner)));
        }
        let Some(id) = PaymentId::parse(end_to_end_id) else {
            return Ok(None);
        };
        Ok(self
            .cx
            .servicing
            .payment_any_owner(&id)
            .await?
            .map(|p| PerEnvironment::<()>::environment_of(&p.owner)))
    }

    /// Does what can be done about `finding` and keeps it as an item.
    async fn settle(
        &self,
        finding: &Finding,
        movement: Option<&BankMovement>,
    ) -> Result<Item, FlowError> {
        let cx = self.cx;
        let mut writes = WriteSet::default();
        let resolution = match (&finding.mismatch, self.account, movement) {
            (Mismatch::NotInLedger, BankAccount::Collections, Some(m)) => {
                match self.collection_of(&m.end_to_end_id).await? {
                    Some(resolution) => resolution,
                    None if m.amount > Money::ZERO => {
                        // One id per bank movement: of two environments
                        // sharing a bank, the first to see it holds it.
                        let id = format!("unidentified.{}", m.end_to_end_id);
                        let held = movements::unidentified(&id, m.amount, cx.clock.now())
                            .map_err(|e| FlowError::Internal(e.to_string()))?
                            .known_at_bank_as(m.end_to_end_id.as_str());
                        writes.push(LedgerWrite::Post(held));
                        Resolution::Suspense { transfer_id: id }
                    }
                    None => Resolution::Open,
                }
            }
            (Mismatch::NotInLedger, BankAccount::Funding, Some(m)) => {
                let outcome = Outcome::Settled {
                    transaction_id: m.transaction_id.clone(),
                    at: m.at,
                };
                if crate::flows::fund::rail_answered(cx, &m.end_to_end_id, outcome).await? {
                    Resolution::Posted {
                        what: format!("the payout {}", m.end_to_end_id),
                    }
                } else {
                    Resolution::Open
                }
            }
            _ => Resolution::Open,
        };
        let item = Item::new(
            (self.day, self.environment, self.account),
            finding,
            resolution,
            cx.clock.now(),
        );
        tracing::warn!(
            item = %item.id,
            mismatch = item.mismatch.as_str(),
            resolution = item.resolution.as_str(),
            bank_pence = item.bank_amount.map(Money::as_pence),
            ledger_pence = item.ledger_amount.map(Money::as_pence),
            "reconciliation: the bank and the ledger differ"
        );
        writes.push(LedgerWrite::ReconciliationItem(item.clone()));
        match cx.commit(writes).await {
            Ok(()) | Err(CommitError::Conflict) => Ok(item),
            Err(e) => Err(e.into()),
        }
    }

    /// A collection the bank settled and lendhub still waits on: settled
    /// now, as its bank's answer would have settled it (`payment.paid`).
    /// `None` if no payment of lendhub's is known by that id.
    async fn collection_of(&self, end_to_end_id: &str) -> Result<Option<Resolution>, FlowError> {
        let Some(id) = PaymentId::parse(end_to_end_id) else {
            return Ok(None);
        };
        let Some(payment) = self.cx.servicing.payment_any_owner(&id).await? else {
            return Ok(None);
        };
        if payment.status != PaymentStatus::Processing {
            return Ok(Some(Resolution::Open));
        }
        let now = self.cx.now_for(&payment.owner).await?;
        crate::flows::payments::heard_from_bank(self.cx, &payment, Progress::Settled, now).await?;
        let settled = self
            .cx
            .servicing
            .payment_any_owner(&id)
            .await?
            .is_some_and(|p| p.status == PaymentStatus::Paid);
        Ok(Some(if settled {
            Resolution::Posted {
                what: format!("the payment {id}"),
            }
        } else {
            Resolution::Open
        }))
    }
}
