//! The ledger's writes: a transfer's postings, then its row (which the
//! database refuses unless they balance), then the running totals they
//! move. A post or a void has one condition (rank 60): the transfer it
//! closes is written and pending; and it closes it once (the unique
//! `pending_id`). Any other has one (rank 59): its id is new.

use std::collections::BTreeMap;

use lendhub_domain::clock::unix_ms;
use lendhub_domain::ledger::transfer::{Phase, Side, Transfer};

use super::{Unit, json, read_check};
use crate::error::StoreError;
use crate::exec::{Dialect, Lock, Statement};
use crate::sql::ledger as sql;
use crate::*;

/// Deltas of (posted debits, posted credits, pending debits, pending
/// credits).
type Deltas = [i64; 4];

/// No transfer yet has the id: a second writer of a transfer whose id is
/// derived (an accrual's names the total it brings interest to) lost a
/// race, which is a conflict to retry, not a fault.
const ABSENT: &str = "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM hub_ledger_transfers WHERE id = $1)";

/// The pending transfer a post or void closes.
const PENDING: Lock =
    lock!("SELECT 1 FROM hub_ledger_transfers WHERE id = $1 AND phase = 'pending'");

pub(super) fn plan(write: &LedgerWrite, d: &Dialect, unit: &mut Unit) -> Result<(), StoreError> {
    let t = match write {
        LedgerWrite::Post(t) => t,
        LedgerWrite::ReconciliationItem(item) => {
            unit.step(
                sql::INSERT_ITEM,
                values![
                    item.id.as_str(),
                    item.date.to_string(),
                    item.resolution.as_str(),
                    unix_ms(item.found_at),
                    json(item)?
                ],
            );
            return Ok(());
        }
        LedgerWrite::RequestReconciliation { day, at_ms } => {
            unit.step(sql::REQUEST_RUN, values![day.to_string(), *at_ms]);
            return Ok(());
        }
        LedgerWrite::ScheduleReconciliation { day, due_ms } => {
            unit.step(sql::SCHEDULE_RUN, values![day.to_string(), *due_ms]);
            return Ok(());
        }
        LedgerWrite::Reconciled {
            report,
            requested_at_ms,
            at_ms,
        } => {
            unit.step(
                sql::RUN_DONE,
                values![
                    report.date.to_string(),
                    *at_ms,
                    *requested_at_ms,
                    json(report)?
                ],
            );
            return Ok(());
        }
    };
    if let Some(pending) = t.phase().closes() {
        unit.check(read_check(
            60,
            pending,
            Some("ledger_pending"),
            Statement::read(d.lock(&PENDING), values![pending]),
        ));
    } else {
        unit.check(read_check(
            59,
            t.id(),
            None,
            Statement::read(ABSENT, values![t.id()]),
        ));
    }
    for (seq, p) in t.postings().iter().enumerate() {
        unit.step(
            sql::INSERT_POSTING,
            values![
                t.id(),
                seq as i64,
                p.account.to_string(),
                p.side.as_str(),
                p.amount.as_pence()
            ],
        );
    }
    unit.step(
        sql::INSERT_TRANSFER,
        values![
            t.id(),
            t.movement().as_str(),
            t.phase().as_str(),
            t.phase().closes(),
            unix_ms(t.at()),
            json(t)?,
            t.reference(),
            t.loan().map(ToString::to_string)
        ],
    );
    for (account, [pd, pc, nd, nc]) in deltas(t) {
        if nd < 0 || nc < 0 {
            // Given back by an update: an upsert's candidate row would be
            // negative, which the table's CHECK refuses before any conflict.
            unit.step(sql::GIVE_BACK_PENDING, values![account.as_str(), -nd, -nc]);
            unit.step(sql::MOVE_TOTALS, values![account, pd, pc, 0i64, 0i64]);
        } else {
            unit.step(sql::MOVE_TOTALS, values![account, pd, pc, nd, nc]);
        }
    }
    Ok(())
}

/// What `t` moves in each account's totals.
fn deltas(t: &Transfer) -> BTreeMap<String, Deltas> {
    let (posted, pending) = match t.phase() {
        Phase::Single => (1, 0),
        Phase::Pending => (0, 1),
        Phase::Post { .. } => (1, -1),
        Phase::Void { .. } => (0, -1),
    };
    let mut by_account: BTreeMap<String, Deltas> = BTreeMap::new();
    for p in t.postings() {
        let d = by_account.entry(p.account.to_string()).or_default();
        let pence = p.amount.as_pence();
        let (posted_at, pending_at) = match p.side {
            Side::Debit => (0, 2),
            Side::Credit => (1, 3),
        };
        d[posted_at] += posted * pence;
        d[pending_at] += pending * pence;
    }
    by_account
}
