//! The double-entry ledger (issue #47): transfers and their running
//! totals, and the database's own refusals.

use lendhub_domain::ids::{AccountId, HubId};
use lendhub_domain::ledger::book::{Book, Totals};
use lendhub_domain::ledger::chart::{LedgerAccount, Lender, Loan};
use lendhub_domain::ledger::movements as m;
use lendhub_domain::ledger::transfer::Transfer;
use lendhub_domain::money::Money;
use lendhub_store::*;

use crate::support::*;

async fn post(store: &dyn Store, t: &Transfer) -> Result<(), CommitError> {
    store
        .commit(set(vec![Write::Ledger(LedgerWrite::Post(t.clone()))], None))
        .await
}

#[tokio::test]
async fn transfers_keep_running_totals_that_match_the_books_rules() {
    let (store, db) = store().await;
    let loan = AccountId::generate(1, 1);
    let capital = m::capital("tr_1", Money::pence(1_000_000), at(1_000)).unwrap();
    let drawdown = m::drawdown("tr_2", &loan, Money::pence(250_000), at(2_000)).unwrap();
    let paid_out = drawdown.post("tr_3", at(3_000)).unwrap();
    let accrual = m::accrual("tr_4", &loan, Money::pence(1_234), at(4_000)).unwrap();
    let refused_payout = m::payout("tr_5", Money::pence(500), at(5_000)).unwrap();
    let voided = refused_payout.void("tr_6", at(6_000)).unwrap();
    let mut book = Book::default();
    for t in [
        &capital,
        &drawdown,
        &paid_out,
        &accrual,
        &refused_payout,
        &voided,
    ] {
        post(store.as_ref(), t).await.unwrap();
        book.apply(t).unwrap();
    }
    // Between a pending transfer and its close, the totals show it pending.
    let in_flight = m::drawdown("tr_7", &loan, Money::pence(9_000), at(7_000)).unwrap();
    post(store.as_ref(), &in_flight).await.unwrap();
    book.apply(&in_flight).unwrap();

    let stored = store.ledger_totals().await.unwrap();
    let principal = LedgerAccount::Loan(loan.clone(), Loan::Principal);
    for row in &stored {
        assert_eq!(row.posted, book.posted(&row.account), "{}", row.account);
        assert_eq!(row.pending, book.pending(&row.account), "{}", row.account);
    }
    let of = |a: &LedgerAccount| stored.iter().find(|r| &r.account == a).unwrap().clone();
    assert_eq!(of(&principal).posted.debits, Money::pence(250_000));
    assert_eq!(of(&principal).pending.debits, Money::pence(9_000));
    let payable = of(&LedgerAccount::Lender(Lender::RevenueSharePayable));
    assert_eq!(payable.posted, Totals::default(), "a void moves nothing");
    assert_eq!(
        payable.pending,
        Totals::default(),
        "and holds nothing after"
    );

    let debits = Money::sum(stored.iter().map(|r| r.posted.debits)).unwrap();
    let credits = Money::sum(stored.iter().map(|r| r.posted.credits)).unwrap();
    assert_eq!(debits, credits);
    assert_eq!(debits, Money::pence(1_000_000 + 250_000 + 1_234));

    // As of a moment: only what was posted before it.
    let before = store.ledger_totals_before(3_500).await.unwrap();
    let funding = before
        .iter()
        .find(|(a, _)| a == &LedgerAccount::Lender(Lender::Funding))
        .unwrap();
    assert_eq!(funding.1.debits, Money::pence(1_000_000));
    assert_eq!(funding.1.credits, Money::pence(250_000));
    assert!(
        before
            .iter()
            .all(|(a, _)| a != &LedgerAccount::Loan(loan.clone(), Loan::Interest))
    );

    assert_eq!(
        store.ledger_transfer("tr_3").await.unwrap(),
        Some(paid_out.clone())
    );
    assert_eq!(store.ledger_transfer("tr_404").await.unwrap(), None);

    // A pending transfer closes once, and a transfer is written once.
    assert!(
        post(store.as_ref(), &drawdown.post("tr_8", at(8_000)).unwrap())
            .await
            .is_err()
    );
    assert!(post(store.as_ref(), &capital).await.is_err());
    drop(db);
}

#[tokio::test]
async fn the_database_refuses_an_unbalanced_transfer_and_any_change_to_the_ledger() {
    let (store, db) = store().await;
    let capital = m::capital("tr_1", Money::pence(100), at(1_000)).unwrap();
    post(store.as_ref(), &capital).await.unwrap();

    // A close with nothing pending would take pending totals below zero.
    let stray = m::payout("tr_2", Money::pence(5), at(2_000))
        .unwrap()
        .post("tr_3", at(2_000))
        .unwrap();
    assert!(post(store.as_ref(), &stray).await.is_err());

    db.execute_raw(
        "INSERT INTO hub_ledger_postings (transfer_id, seq, account, side, amount_pence)
         VALUES ('tr_x', 0, 'lender:funding', 'debit', 100)",
    )
    .await
    .unwrap();
    db.execute_raw(
        "INSERT INTO hub_ledger_postings (transfer_id, seq, account, side, amount_pence)
         VALUES ('tr_x', 1, 'lender:capital', 'credit', 99)",
    )
    .await
    .unwrap();
    let refused = db
        .execute_raw(
            "INSERT INTO hub_ledger_transfers (id, movement, phase, pending_id, at_ms, body)
             VALUES ('tr_x', 'capital', 'single', NULL, 0, '{}')",
        )
        .await
        .unwrap_err();
    assert!(refused.contains("debits must equal"), "{refused}");
    let refused = db
        .execute_raw(
            "INSERT INTO hub_ledger_postings (transfer_id, seq, account, side, amount_pence)
             VALUES ('tr_1', 2, 'lender:funding', 'debit', 1)",
        )
        .await
        .unwrap_err();
    assert!(refused.contains("no more postings"), "{refused}");
    for sql in [
        "UPDATE hub_ledger_postings SET amount_pence = 1",
        "DELETE FROM hub_ledger_postings",
        "UPDATE hub_ledger_transfers SET at_ms = 0",
        "DELETE FROM hub_ledger_transfers",
    ] {
        let refused = db.execute_raw(sql).await.unwrap_err();
        assert!(refused.contains("immutable"), "{sql}: {refused}");
    }
    let totals = store.ledger_totals().await.unwrap();
    assert_eq!(
        Money::sum(totals.iter().map(|r| r.posted.debits)),
        Some(Money::pence(100))
    );
}

#[tokio::test]
async fn a_loans_transfers_a_days_movements_and_a_bank_reference_are_found() {
    let (store, db) = store().await;
    let loan = AccountId::generate(1, 1);
    let other = AccountId::generate(1, 2);
    let drawdown = m::drawdown("dsb_1", &loan, Money::pence(250_000), at(1_000))
        .unwrap()
        .known_at_bank_as("dsb_1");
    let settled = drawdown.post("dsb_1.settled", at(90_000_000)).unwrap();
    let elsewhere = m::drawdown("dsb_2", &other, Money::pence(5_000), at(2_000)).unwrap();
    let accrual = m::accrual("acr", &loan, Money::pence(12), at(3_000)).unwrap();
    for t in [&drawdown, &settled, &elsewhere, &accrual] {
        post(store.as_ref(), t).await.unwrap();
    }
    let of_loan = store.loan_transfers(&loan).await.unwrap();
    assert_eq!(of_loan, vec![drawdown.clone(), accrual, settled.clone()]);

    // The funding account's movements on the second day (UTC) only.
    let day = 86_400_000;
    let moved = store
        .account_transfers_between(&LedgerAccount::Lender(Lender::Funding), day, 2 * day)
        .await
        .unwrap();
    assert_eq!(moved, vec![settled.clone()]);
    assert_eq!(
        store.transfers_known_as("dsb_1").await.unwrap(),
        vec![drawdown, settled],
        "a close carries its pending transfer's reference"
    );
    assert!(store.transfers_known_as("dsb_2").await.unwrap().is_empty());
    drop(db);
}

#[tokio::test]
async fn a_days_reconciliation_runs_once_per_request_and_keeps_each_item_once() {
    use lendhub_domain::ledger::reconciliation::{
        BankAccount, Finding, Item, Mismatch, Report, Resolution,
    };
    use lendhub_domain::partner::credentials::Environment;
    use time::macros::date;

    let (store, db) = store().await;
    let day = date!(2026 - 11 - 29);
    let commit = |w: LedgerWrite| store.commit(set(vec![Write::Ledger(w)], None));
    commit(LedgerWrite::ScheduleReconciliation { day, due_ms: 5_000 })
        .await
        .unwrap();
    assert!(
        store
            .due_reconciliations(4_999, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.due_reconciliations(5_000, 10).await.unwrap(),
        vec![(day, 5_000)]
    );
    // Scheduled again: unchanged. Asked for: due now, again.
    commit(LedgerWrite::ScheduleReconciliation { day, due_ms: 9_000 })
        .await
        .unwrap();
    commit(LedgerWrite::RequestReconciliation { day, at_ms: 6_000 })
        .await
        .unwrap();
    assert_eq!(
        store.due_reconciliations(6_000, 10).await.unwrap(),
        vec![(day, 6_000)]
    );
    let report = Report {
        date: day,
        accounts: Vec::new(),
        ran_at: at(7_000),
    };
    // A run answering an older request leaves a newer one due.
    commit(LedgerWrite::RequestReconciliation { day, at_ms: 6_500 })
        .await
        .unwrap();
    commit(LedgerWrite::Reconciled {
        report: report.clone(),
        requested_at_ms: 6_000,
        at_ms: 7_000,
    })
    .await
    .unwrap();
    assert_eq!(store.due_reconciliations(7_000, 10).await.unwrap().len(), 1);
    commit(LedgerWrite::Reconciled {
        report: report.clone(),
        requested_at_ms: 6_500,
        at_ms: 7_100,
    })
    .await
    .unwrap();
    assert!(
        store
            .due_reconciliations(8_000, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let run = store.reconciliation_run(day).await.unwrap().unwrap();
    assert_eq!(run.done_at_ms, Some(7_100));
    assert_eq!(run.report, Some(report));

    let finding = Finding {
        end_to_end_id: "pay_1".into(),
        bank: None,
        ledger: Some(Money::pence(100)),
        mismatch: Mismatch::NotAtBank,
    };
    let item = Item::new(
        (day, Environment::Test, BankAccount::Collections),
        &finding,
        Resolution::Open,
        at(7_000),
    );
    for _ in 0..2 {
        commit(LedgerWrite::ReconciliationItem(item.clone()))
            .await
            .unwrap();
    }
    assert_eq!(
        store.reconciliation_items_of(day).await.unwrap(),
        vec![item.clone()]
    );
    assert_eq!(store.reconciliation_items(10).await.unwrap(), vec![item]);
    drop(db);
}
