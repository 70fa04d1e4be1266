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
