//! Partner economics' storage (issue #17): agreements per partner, statements
//! rewritten only while drafts, payouts only until the rail moves them
//! (then only over the version read), and the months
//! waiting to close on their owner's clock, each moved on by one close.

use lendhub_domain::billing::statement::agreement::Agreement;
use lendhub_domain::billing::statement::{self, Close, PayoutStatus, Period, Status, Terms};
use lendhub_domain::ids::HubId;
use lendhub_domain::tenant::Tenant;
use lendhub_domain::working_days::WorkingDays;
use lendhub_store::*;

use crate::lending::open_account;
use crate::support::*;

fn partner(env: &str) -> Tenant {
    Tenant::partner("pk_live_conformance", env == "live", None)
}

async fn put(store: &dyn Store, write: CommercialWrite) -> Result<(), CommitError> {
    store
        .commit(set(vec![Write::Commercial(write)], None))
        .await
}

#[tokio::test]
async fn agreements_are_kept_per_partner_in_month_order_one_per_month() {
    let (store, _db) = store().await;
    assert_eq!(store.partner_agreements("pk_live_a").await.unwrap(), vec![]);
    let agree = |month: &str, terms: Terms, at: i64| CommercialWrite::AgreeTerms {
        client_id: "pk_live_a".into(),
        agreement: Agreement {
            effective_from: Period::parse(month).unwrap(),
            terms,
        },
        agreed_at_ms: at,
    };
    let share = Terms::RevenueShare {
        strategic_share_bps: 2_500,
    };
    let fee = Terms::IntegrationFee {
        custom_fee_pence: Some(1_800),
    };
    put(store.as_ref(), agree("2027-03", fee.clone(), 1))
        .await
        .unwrap();
    put(store.as_ref(), agree("2026-11", share.clone(), 2))
        .await
        .unwrap();
    let months = |agreements: Vec<Agreement>| {
        agreements
            .into_iter()
            .map(|a| (a.effective_from.to_string(), a.terms))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        months(store.partner_agreements("pk_live_a").await.unwrap()),
        vec![("2026-11".into(), share.clone()), ("2027-03".into(), fee)]
    );
    // Agreed again from March: the later agreement replaces the earlier.
    put(store.as_ref(), agree("2027-03", share.clone(), 3))
        .await
        .unwrap();
    assert_eq!(
        months(store.partner_agreements("pk_live_a").await.unwrap()),
        vec![("2026-11".into(), share.clone()), ("2027-03".into(), share)]
    );
    assert_eq!(store.partner_agreements("pk_live_b").await.unwrap(), vec![]);
}

#[tokio::test]
async fn a_finalized_statement_and_a_paid_payout_never_change() {
    let (store, _db) = store().await;
    let owner = partner("test");
    let (account, sub, mut draft) = shared_month(store.as_ref(), &owner).await;
    let period = Period::of(account.opened_at);
    assert_eq!(draft.payouts.len(), 1);
    put(store.as_ref(), CommercialWrite::PutStatement(draft.clone()))
        .await
        .unwrap();
    for p in draft.payout_records(account.opened_at) {
        put(store.as_ref(), CommercialWrite::PutPayout(p))
            .await
            .unwrap();
    }
    let period_text = period.to_string();
    assert_eq!(
        store.statement_for(&owner, &period_text).await.unwrap(),
        Some(draft.clone())
    );
    assert_eq!(
        store.statement(&owner, &draft.id).await.unwrap(),
        Some(draft.clone())
    );
    assert_eq!(
        store.statement(&partner("live"), &draft.id).await.unwrap(),
        None
    );

    // Finalized: written once more, then never again.
    draft.status = Status::Finalized;
    put(store.as_ref(), CommercialWrite::PutStatement(draft.clone()))
        .await
        .unwrap();
    for p in draft.payout_records(account.opened_at) {
        put(store.as_ref(), CommercialWrite::PutPayout(p))
            .await
            .unwrap();
    }
    let mut changed = draft.clone();
    changed.payable_pence += 1;
    changed.status = Status::Draft;
    put(store.as_ref(), CommercialWrite::PutStatement(changed))
        .await
        .unwrap();
    assert_eq!(
        store.statement_for(&owner, &period_text).await.unwrap(),
        Some(draft.clone()),
        "the finalized statement stands"
    );
    // Due on the pay date over the rail: claimed by one worker (a second
    // claim from the same read conflicts), then paid.
    let due = draft.payout_records(account.opened_at).remove(0);
    let due_ms = lendhub_domain::clock::unix_ms(due.due_at.unwrap());
    assert!(store.due_payouts(due_ms - 1, 10).await.unwrap().is_empty());
    let found = store.due_payouts(due_ms, 10).await.unwrap();
    assert_eq!(found.len(), 2, "the sub-account's and the partner's own");
    assert!(found.iter().any(|f| f.payout == due));
    let claimed = due.claim(due.due_at.unwrap()).unwrap();
    put(store.as_ref(), CommercialWrite::MovePayout(claimed.clone()))
        .await
        .unwrap();
    assert!(matches!(
        put(store.as_ref(), CommercialWrite::MovePayout(claimed.clone())).await,
        Err(CommitError::Conflict)
    ));
    assert_eq!(
        store.payout(&owner, &due.id).await.unwrap(),
        Some(claimed.clone())
    );
    assert_eq!(store.payout(&partner("live"), &due.id).await.unwrap(), None);
    let resend_ms = lendhub_domain::clock::unix_ms(claimed.due_at.unwrap());
    assert_eq!(store.due_payouts(resend_ms, 10).await.unwrap().len(), 2);
    let paid = claimed.settle("txn-1", account.opened_at).unwrap();
    put(store.as_ref(), CommercialWrite::MovePayout(paid.clone()))
        .await
        .unwrap();
    let left = store.due_payouts(i64::MAX / 2, 10).await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(
        left[0].payout.sub_account_id, None,
        "the partner's own waits"
    );
    let mut pending = draft.payout_records(account.opened_at);
    pending[0].status = PayoutStatus::Pending;
    pending[0].gross_pence += 1;
    put(
        store.as_ref(),
        CommercialWrite::PutPayout(pending[0].clone()),
    )
    .await
    .unwrap();
    let page = match store
        .payouts(
            &owner,
            &PayoutQuery {
                page: PageQuery {
                    limit: 10,
                    ..PageQuery::default()
                },
                sub_account_id: Some(sub.to_string()),
            },
        )
        .await
        .unwrap()
    {
        PayoutPage::Page(p) => p,
        PayoutPage::UnknownCursor => panic!("no cursor given"),
    };
    assert_eq!(page.items, vec![paid], "paid stands");
    match store
        .statements(
            &owner,
            &StatementQuery {
                page: PageQuery {
                    limit: 10,
                    ..PageQuery::default()
                },
                period: Some(period_text.clone()),
            },
        )
        .await
        .unwrap()
    {
        StatementPage::Page(p) => assert_eq!(p.items, vec![draft.clone()]),
        StatementPage::UnknownCursor => panic!("no cursor given"),
    }
    assert_eq!(
        store
            .billing_owners(
                lendhub_domain::clock::unix_ms(period.start()),
                lendhub_domain::clock::unix_ms(period.end())
            )
            .await
            .unwrap(),
        vec![owner.clone()]
    );
    assert_eq!(store.owner_accounts(&owner).await.unwrap(), vec![account]);
}

/// A revenue-share month of `owner`'s with one loan, introduced by a
/// sub-account on 5 %: the account, the sub-account and its draft.
async fn shared_month(
    store: &dyn Store,
    owner: &Tenant,
) -> (
    lendhub_domain::servicing::account::Account,
    lendhub_domain::ids::SubAccountId,
    statement::Statement,
) {
    let account = open_account(store, owner, 1_700_000_000_000).await;
    let sub = lendhub_domain::ids::SubAccountId::generate(1, 1);
    let mut loan = loan_of(&account);
    loan.sub_account_id = Some(sub.clone());
    let terms = Terms::RevenueShare {
        strategic_share_bps: 2_200,
    };
    let draft = statement::close(
        owner,
        Period::of(account.opened_at),
        &terms,
        &[loan],
        &|_| 500,
        &WorkingDays::bundled(),
    )
    .unwrap();
    (account, sub, draft)
}

/// The partner's own remittance is kept beside its sub-accounts' payouts
/// (one a month), found among the failed by its payee, and paid to the
/// account recorded for the partner in that environment.
#[tokio::test]
async fn a_partners_own_remittance_fails_without_an_account_and_is_found_again_by_its_payee() {
    use lendhub_domain::partner::sub_account::PayoutAccount;
    let (store, _db) = store().await;
    let owner = partner("test");
    let (account, sub, mut s) = shared_month(store.as_ref(), &owner).await;
    s.status = Status::Finalized;
    let at = account.opened_at;
    for p in s.payout_records(at) {
        put(store.as_ref(), CommercialWrite::PutPayout(p))
            .await
            .unwrap();
    }
    let records = s.payout_records(at);
    let own = records.iter().find(|p| p.sub_account_id.is_none()).unwrap();
    let theirs = records.iter().find(|p| p.sub_account_id.is_some()).unwrap();
    for p in [own, theirs] {
        let failed = p.unpayable("no_payout_account", at).unwrap();
        put(store.as_ref(), CommercialWrite::MovePayout(failed))
            .await
            .unwrap();
    }
    let of = |payee: Option<&lendhub_domain::ids::SubAccountId>| {
        let store = store.clone();
        let owner = owner.clone();
        let payee = payee.cloned();
        async move {
            store
                .failed_payouts(&owner, payee.as_ref())
                .await
                .unwrap()
                .into_iter()
                .map(|p| p.id)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(of(None).await, vec![own.id.clone()]);
    assert_eq!(of(Some(&sub)).await, vec![theirs.id.clone()]);

    assert_eq!(store.partner_payout_account(&owner).await.unwrap(), None);
    let paid_at = |n: &str| PayoutAccount {
        name: "Partner Ltd".into(),
        sort_code_account_number: format!("040004{n}"),
    };
    for n in ["10000010", "12345678"] {
        put(
            store.as_ref(),
            CommercialWrite::SetPartnerPayoutAccount {
                owner: owner.clone(),
                account: paid_at(n),
                at,
            },
        )
        .await
        .unwrap();
    }
    assert_eq!(
        store.partner_payout_account(&owner).await.unwrap(),
        Some(paid_at("12345678")),
        "the latest replaces the one before"
    );
    assert_eq!(
        store
            .partner_payout_account(&partner("live"))
            .await
            .unwrap(),
        None,
        "per environment"
    );
}

/// The domain's loan of an account, as the hub's close reads it.
fn loan_of(a: &lendhub_domain::servicing::account::Account) -> statement::Loan {
    statement::Loan {
        account_id: a.id.clone(),
        company_number: a.company_number.clone(),
        sub_account_id: a.sub_account_id.clone(),
        partner_ref: a.partner_ref.clone(),
        applied_at: a.opened_at,
        funded_at: a.opened_at,
        principal: a.terms.amount_pence,
        total_repayable: a.terms.total_repayable_pence,
        term_months: a.terms.term_months,
    }
}

#[tokio::test]
async fn a_months_close_waits_on_its_owners_clock_and_moves_on_once() {
    let (store, _db) = store().await;
    let owner = partner("test");
    let close = Close {
        owner: owner.clone(),
        period: "2026-11".into(),
        due_at_ms: 2_000,
        version: 0,
    };
    put(
        store.as_ref(),
        CommercialWrite::ScheduleClose(close.clone()),
    )
    .await
    .unwrap();
    let later = Close {
        due_at_ms: 9_000,
        ..close.clone()
    };
    put(store.as_ref(), CommercialWrite::ScheduleClose(later))
        .await
        .unwrap();
    assert!(store.due_closes(1_999, 10).await.unwrap().is_empty());
    let due = store.due_closes(2_000, 10).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].close, close, "the first schedule stands");
    // On a test clock 1 s ahead, it is due a second earlier.
    store
        .commit(set_clock(owner.as_str(), 0, 1_000))
        .await
        .unwrap();
    assert_eq!(store.due_closes(1_000, 10).await.unwrap().len(), 1);

    let moved = Close {
        due_at_ms: 5_000,
        version: 1,
        ..close.clone()
    };
    let move_on = |next: Option<Close>| CommercialWrite::MoveClose {
        read: close.clone(),
        key: close.key(),
        next,
    };
    put(store.as_ref(), move_on(Some(moved.clone())))
        .await
        .unwrap();
    assert!(
        matches!(
            put(store.as_ref(), move_on(None)).await,
            Err(CommitError::Conflict)
        ),
        "a second close of what was read loses"
    );
    assert!(store.due_closes(3_000, 10).await.unwrap().is_empty());
    let due = store.due_closes(4_000, 10).await.unwrap();
    assert_eq!(due[0].close, moved);
    // Moved to the same time again (a draft drafted again): still once.
    let again = Close {
        version: 2,
        ..moved.clone()
    };
    let redraft = || CommercialWrite::MoveClose {
        read: moved.clone(),
        key: moved.key(),
        next: Some(again.clone()),
    };
    put(store.as_ref(), redraft()).await.unwrap();
    assert!(
        matches!(
            put(store.as_ref(), redraft()).await,
            Err(CommitError::Conflict)
        ),
        "the same due time, but not the version read"
    );
    let moved = again;
    put(
        store.as_ref(),
        CommercialWrite::MoveClose {
            read: moved.clone(),
            key: moved.key(),
            next: None,
        },
    )
    .await
    .unwrap();
    assert!(store.due_closes(i64::MAX / 2, 10).await.unwrap().is_empty());
}
