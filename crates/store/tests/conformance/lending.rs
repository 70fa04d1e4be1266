//! The lending context: the REST tier's applications, their pages and the
//! expiry sweep.

use lendhub_domain::ids::{AccountId, ApplicationId, DecisionId, DisbursementId, HubId};
use lendhub_domain::lending::application::{
    self, Act, Applicant, Application, Request, Status, UnderwritingAct,
};
use lendhub_domain::lending::register;
use lendhub_domain::lending::underwriting::{Banking, CreditFile, Facts, Signals};
use lendhub_domain::servicing::account::Account;
use lendhub_domain::tenant::Tenant;
use lendhub_store::*;

use crate::support::*;

fn partner(env: &str) -> Tenant {
    Tenant::partner("pk_live_conformance", env == "live", None)
}

fn new_application(owner: &Tenant, ms: i64, reference: Option<&str>) -> Application {
    let checked = application::check(Request {
        company_number: Some("00000401".into()),
        amount_pence: Some(1_000_000),
        term_months: Some(12),
        applicant: Applicant {
            email: Some("a@example.com".into()),
            first_name: None,
        },
        reference: reference.map(str::to_owned),
        ..Request::default()
    })
    .unwrap();
    Application::new(
        ApplicationId::generate(ms as u64, ms as u128),
        owner.clone(),
        "pk_live_conformance",
        checked,
        &register::synthetic("00000401").unwrap(),
        at(ms),
    )
}

async fn insert(store: &dyn Store, a: &Application) {
    store
        .commit(set(
            vec![Write::Lending(LendingWrite::InsertApplication(a.clone()))],
            None,
        ))
        .await
        .unwrap();
}

fn ids(page: ApplicationPage) -> Vec<String> {
    match page {
        ApplicationPage::Page(p) => p.items.into_iter().map(|a| a.id.to_string()).collect(),
        ApplicationPage::UnknownCursor => panic!("unknown cursor"),
    }
}

#[tokio::test]
async fn applications_are_owned_paged_newest_first_and_filtered() {
    let (store, _db) = store().await;
    let test = partner("test");
    let mut made = Vec::new();
    for i in 0..5 {
        let a = new_application(&test, 1_000 + i, (i % 2 == 0).then_some("INV-7"));
        insert(store.as_ref(), &a).await;
        made.push(a.id.to_string());
    }
    insert(
        store.as_ref(),
        &new_application(&partner("live"), 2_000, None),
    )
    .await;
    let newest_first: Vec<String> = made.iter().rev().cloned().collect();

    let query = |limit, after: Option<&str>, before: Option<&str>| ApplicationQuery {
        page: PageQuery {
            limit,
            starting_after: after.map(str::to_owned),
            ending_before: before.map(str::to_owned),
        },
        ..ApplicationQuery::default()
    };
    let all = store
        .hub_applications(&test, &query(10, None, None))
        .await
        .unwrap();
    assert_eq!(
        ids(all),
        newest_first,
        "the live one is not the test environment's"
    );
    let second = store
        .hub_applications(&test, &query(2, Some(&newest_first[1]), None))
        .await
        .unwrap();
    assert_eq!(ids(second), newest_first[2..4]);
    let back = store
        .hub_applications(&test, &query(2, None, Some(&newest_first[4])))
        .await
        .unwrap();
    assert_eq!(ids(back), newest_first[2..4], "newest first whichever way");
    assert!(matches!(
        store
            .hub_applications(&partner("live"), &query(2, Some(&made[0]), None))
            .await
            .unwrap(),
        ApplicationPage::UnknownCursor
    ));

    let referenced = ApplicationQuery {
        reference: Some("INV-7".into()),
        ..query(10, None, None)
    };
    assert_eq!(
        ids(store.hub_applications(&test, &referenced).await.unwrap()).len(),
        3
    );
    let floor = ApplicationId::generate(1_003, 0).to_string();
    let after = ApplicationQuery {
        after_id: Some(floor),
        ..query(10, None, None)
    };
    assert_eq!(
        ids(store.hub_applications(&test, &after).await.unwrap()),
        newest_first[..2]
    );

    // The dashboard's search: any part of the id, reference, company
    // number or name, in any case; its wildcards are only characters.
    let searched = |needle: &str| ApplicationQuery {
        search: Some(needle.to_owned()),
        ..query(10, None, None)
    };
    let found = |page| ids(page).len();
    let company = new_application(&test, 0, None).company_name;
    let word = company.split_whitespace().next().unwrap().to_uppercase();
    for (needle, expected) in [
        ("inv-7", 3),
        ("nv-", 3),
        (word.as_str(), 5),
        ("00000401", 5),
        (&made[1][4..20], 1),
        ("%", 0),
        // Only the ids' own underscores (`app_…`) match `_`.
        ("_", 5),
        ("INV_7", 0),
        ("nobody", 0),
    ] {
        let page = store.hub_applications(&test, &searched(needle)).await;
        assert_eq!(found(page.unwrap()), expected, "searching for {needle:?}");
    }
    let both = ApplicationQuery {
        status: Some(Status::Created),
        ..searched("inv-7")
    };
    assert_eq!(
        found(store.hub_applications(&test, &both).await.unwrap()),
        3
    );

    // A withdrawal commits over the version it read, once.
    let first = store
        .hub_application(&test, &ApplicationId::parse(&made[0]).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.status, Status::Created);
    let withdrawn = first.withdraw(None, at(5_000)).unwrap().unwrap();
    let update = || {
        set(
            vec![Write::Lending(LendingWrite::UpdateApplication(
                withdrawn.clone(),
            ))],
            None,
        )
    };
    store.commit(update()).await.unwrap();
    assert!(matches!(
        store.commit(update()).await,
        Err(CommitError::Conflict)
    ));
    let by_status = ApplicationQuery {
        status: Some(Status::Withdrawn),
        ..query(10, None, None)
    };
    assert_eq!(
        ids(store.hub_applications(&test, &by_status).await.unwrap()),
        vec![made[0].clone()]
    );
    let withdrawn_and_searched = ApplicationQuery {
        status: Some(Status::Withdrawn),
        ..searched(&made[0])
    };
    assert_eq!(
        ids(store
            .hub_applications(&test, &withdrawn_and_searched)
            .await
            .unwrap()),
        vec![made[0].clone()],
        "an update keeps the application searchable"
    );
    assert!(
        store
            .hub_application(&partner("live"), &ApplicationId::parse(&made[0]).unwrap())
            .await
            .unwrap()
            .is_none(),
        "another owner's application is invisible"
    );
}

#[tokio::test]
async fn open_applications_fall_due_on_their_owners_clock() {
    let (store, _db) = store().await;
    let test = partner("test");
    let open = new_application(&test, 1_000, None);
    insert(store.as_ref(), &open).await;
    let closed = new_application(&test, 1_001, None);
    insert(store.as_ref(), &closed).await;
    let withdrawn = closed.withdraw(None, at(1_500)).unwrap().unwrap();
    store
        .commit(set(
            vec![Write::Lending(LendingWrite::UpdateApplication(withdrawn))],
            None,
        ))
        .await
        .unwrap();
    let due_ms = lendhub_domain::clock::unix_ms(open.expires_at);
    assert!(
        store
            .due_applications(due_ms - 1, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let due = store.due_applications(due_ms, 10).await.unwrap();
    assert_eq!(due.len(), 1, "only the open one");
    assert_eq!(due[0].application.id, open.id);
    store.commit(set_clock(test.as_str(), 0, 10)).await.unwrap();
    let early = store.due_applications(due_ms - 10, 10).await.unwrap();
    assert_eq!(early.len(), 1, "its owner's clock is ahead");
    assert_eq!(early[0].clock_offset_ms, 10);
}

#[tokio::test]
async fn a_verification_is_stored_once_and_read_by_its_owner_only() {
    use lendhub_domain::ids::VerificationId;
    use lendhub_domain::lending::kyc::{self, Verification};
    let (store, _db) = store().await;
    let test = partner("test");
    let checked = kyc::check(
        &kyc::Request {
            first_name: Some("Ada".into()),
            last_name: Some("Sanctioned".into()),
            date_of_birth: Some("1985-04-12".into()),
            ..kyc::Request::default()
        },
        time::macros::date!(2026 - 11 - 25),
    )
    .unwrap();
    let answer = kyc::ProviderCheck {
        id: "chk_provider_1".into(),
        findings: kyc::synthetic(&checked.person, false),
    };
    let v = Verification::from_provider(
        VerificationId::generate(1_000, 7),
        test.clone(),
        checked,
        None,
        answer,
        at(1_000),
    );
    assert_eq!(v.provider_check_id.as_deref(), Some("chk_provider_1"));
    store
        .commit(set(
            vec![Write::Lending(LendingWrite::InsertVerification(v.clone()))],
            None,
        ))
        .await
        .unwrap();
    assert_eq!(
        store.verification(&test, &v.id).await.unwrap(),
        Some(v.clone())
    );
    assert_eq!(
        store.verification(&partner("live"), &v.id).await.unwrap(),
        None
    );
    assert!(
        store
            .commit(set(
                vec![Write::Lending(LendingWrite::InsertVerification(v))],
                None,
            ))
            .await
            .is_err(),
        "an id is stored once"
    );
}

/// A submitted application and its decision, as the engine leaves them.
fn decided(owner: &Tenant, ms: i64, facts: Facts) -> (Application, application::Decision) {
    let a = new_application(owner, ms, None);
    let (_, decided, decision) = a
        .submit(
            DecisionId::generate(ms as u64, ms as u128),
            facts,
            lendhub_domain::credit_model::champion().unwrap(),
            at(ms),
        )
        .unwrap();
    (decided, decision)
}

/// Stores `application` as created, then submitted and decided.
async fn store_decided(
    store: &dyn Store,
    application: &Application,
    decision: &application::Decision,
) {
    let created = Application {
        status: Status::Created,
        decision_id: None,
        version: application.version - 1,
        ..application.clone()
    };
    insert(store, &created).await;
    store
        .commit(set(
            vec![
                Write::Lending(LendingWrite::UpdateApplication(application.clone())),
                Write::Lending(LendingWrite::InsertDecision(decision.clone())),
            ],
            None,
        ))
        .await
        .unwrap();
}

fn facts(months: u32) -> Facts {
    Facts::new(
        &register::synthetic("00000401").unwrap(),
        1_000_000,
        12,
        CreditFile::synthetic("00000401"),
        Some(Banking::steady(months, 5_000_000, 3_000_000)),
        None,
        Signals::default(),
    )
}

#[tokio::test]
async fn a_decision_changes_only_beside_its_applications_next_version() {
    let (store, _db) = store().await;
    let owner = partner("test");
    let (application, decision) = decided(&owner, 5_000, facts(12));
    insert(store.as_ref(), &new_application(&owner, 4_000, None)).await;
    store_decided(store.as_ref(), &application, &decision).await;

    let (accepted_app, accepted) = application
        .accept(&decision, "Ada Lovelace".into(), dsb(at(6_000)), at(6_000))
        .unwrap();
    let change = |a: &Application, d: &application::Decision| {
        set(
            vec![
                Write::Lending(LendingWrite::UpdateApplication(a.clone())),
                Write::Lending(LendingWrite::UpdateDecision(d.clone())),
            ],
            None,
        )
    };
    store
        .commit(change(&accepted_app, &accepted))
        .await
        .unwrap();
    let stored = store
        .hub_decision(&owner, &decision.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored, accepted);
    assert!(stored.locked());

    // A change computed from the old version loses, and takes its decision
    // change with it.
    let (stale_app, stale) = application
        .redecide(
            &decision,
            facts(1),
            lendhub_domain::credit_model::champion().unwrap(),
            at(7_000),
        )
        .unwrap();
    assert!(matches!(
        store.commit(change(&stale_app, &stale)).await,
        Err(CommitError::Conflict)
    ));
    assert_eq!(
        store
            .hub_decision(&owner, &decision.id)
            .await
            .unwrap()
            .unwrap(),
        accepted
    );
}

#[tokio::test]
async fn the_newest_declined_application_of_a_company_is_found_per_owner() {
    let (store, _db) = store().await;
    let owner = partner("test");
    assert!(
        store
            .latest_declined(&owner, "00000401")
            .await
            .unwrap()
            .is_none()
    );
    for ms in [1_000, 2_000] {
        let declined = Application {
            status: Status::Declined,
            ..new_application(&owner, ms, None)
        };
        insert(store.as_ref(), &declined).await;
    }
    insert(store.as_ref(), &new_application(&owner, 3_000, None)).await;
    let found = store
        .latest_declined(&owner, "00000401")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.created_at, at(2_000));
    assert!(
        store
            .latest_declined(&partner("live"), "00000401")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .latest_declined(&owner, "00000402")
            .await
            .unwrap()
            .is_none()
    );
}

fn act(decision: &application::Decision, kind: Act, ms: i64) -> UnderwritingAct {
    UnderwritingAct {
        decision_id: decision.id.clone(),
        owner: decision.owner.clone(),
        act: kind,
        actor: "Grace Hopper".into(),
        note: format!("{kind:?} at {ms}"),
        at: at(ms),
    }
}

#[tokio::test]
async fn the_underwriting_queue_and_its_append_only_log() {
    let (store, db) = store().await;
    let (test, live) = (partner("test"), partner("live"));
    let mut referred = Vec::new();
    for (owner, ms) in [(&test, 10_000), (&live, 11_000)] {
        let (application, decision) = decided(owner, ms, facts(1));
        assert_eq!(application.status, Status::InReview);
        store_decided(store.as_ref(), &application, &decision).await;
        referred.push((application, decision));
    }
    let queue: Vec<String> = store
        .in_review(10)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.id.to_string())
        .collect();
    assert_eq!(
        queue,
        [referred[0].0.id.to_string(), referred[1].0.id.to_string()],
        "every partner's, oldest first"
    );
    let (_, live_decision) = &referred[1];
    assert_eq!(
        store
            .decision_any_owner(&live_decision.id)
            .await
            .unwrap()
            .as_ref(),
        Some(live_decision)
    );

    let (application, decision) = &referred[0];
    let (approved_app, approved) = application
        .resolve_referral(
            decision,
            lendhub_domain::lending::underwriting::approve_referral(&decision.facts),
            at(12_000),
        )
        .unwrap();
    store
        .commit(set(
            vec![
                Write::Lending(LendingWrite::UpdateApplication(approved_app)),
                Write::Lending(LendingWrite::UpdateDecision(approved.clone())),
                Write::Lending(LendingWrite::RecordAct(act(
                    &approved,
                    Act::Approve,
                    12_000,
                ))),
            ],
            None,
        ))
        .await
        .unwrap();
    store
        .commit(set(
            vec![Write::Lending(LendingWrite::RecordAct(act(
                live_decision,
                Act::Decline,
                13_000,
            )))],
            None,
        ))
        .await
        .unwrap();
    assert_eq!(store.in_review(10).await.unwrap().len(), 1);
    let log = store.underwriting_log(None).await.unwrap();
    assert_eq!(
        log,
        [
            act(&approved, Act::Approve, 12_000),
            act(live_decision, Act::Decline, 13_000)
        ]
    );
    assert_eq!(
        store
            .underwriting_log(Some(&live_decision.id))
            .await
            .unwrap(),
        [act(live_decision, Act::Decline, 13_000)]
    );

    // The database itself refuses to rewrite history.
    for sql in [
        "UPDATE underwriting_log SET actor = 'someone else'",
        "DELETE FROM underwriting_log",
    ] {
        let refused = db.execute_raw(sql).await.unwrap_err();
        assert!(refused.contains("append-only"), "{sql}: {refused}");
    }
    assert_eq!(store.underwriting_log(None).await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_funded_loan_opens_one_account_read_by_its_owner() {
    let (store, _db) = store().await;
    let owner = partner("test");
    let (application, decision) = decided(&owner, 20_000, facts(12));
    store_decided(store.as_ref(), &application, &decision).await;
    let (signed, locked) = application
        .accept(&decision, "Ada".into(), dsb(at(21_000)), at(21_000))
        .unwrap();
    let id = AccountId::generate(22_000, 22_000);
    let funded = paid_out(&signed, &id, at(22_000));
    let account = Account::open(
        id.clone(),
        &funded,
        &locked,
        "test_bank_strong",
        "fps_1".into(),
        at(22_000),
    )
    .unwrap();
    let open = |a: &Application, acc: &Account| {
        set(
            vec![
                Write::Lending(LendingWrite::UpdateApplication(a.clone())),
                Write::Lending(LendingWrite::OpenAccount(acc.clone())),
            ],
            None,
        )
    };
    store
        .commit(set(
            vec![
                Write::Lending(LendingWrite::UpdateApplication(signed.clone())),
                Write::Lending(LendingWrite::UpdateDecision(locked.clone())),
            ],
            None,
        ))
        .await
        .unwrap();
    store.commit(open(&funded, &account)).await.unwrap();
    assert_eq!(
        store.hub_account(&owner, &id).await.unwrap().as_ref(),
        Some(&account)
    );
    assert!(
        store
            .hub_account(&partner("live"), &id)
            .await
            .unwrap()
            .is_none()
    );
    // A second account for the same loan is refused, whatever its id.
    let twice = Account {
        id: AccountId::generate(23_000, 23_000),
        ..account.clone()
    };
    let next = Application {
        version: funded.version + 1,
        ..funded.clone()
    };
    assert!(store.commit(open(&next, &twice)).await.is_err());
}

#[tokio::test]
async fn a_handoff_link_starts_one_journey_which_changes_version_by_version() {
    use lendhub_domain::lending::journey::{Journey, PendingSignIn};
    let (store, _db) = store().await;
    let owner = partner("test");
    let application = new_application(&owner, 30_000, Some("journey"));
    insert(store.as_ref(), &application).await;
    assert_eq!(
        store.application_any_owner(&application.id).await.unwrap(),
        Some(application.clone())
    );
    assert_eq!(store.journey(&application.id).await.unwrap(), None);
    let pending = PendingSignIn {
        state: "state".into(),
        nonce: "nonce".into(),
        code_verifier: "verifier".into(),
    };
    let start = |token: &str| {
        Journey::start(
            application.id.clone(),
            owner.clone(),
            token,
            pending.clone(),
            at(31_000),
        )
    };
    let first = start("browser-a");
    let commit_one = |w: LendingWrite| set(vec![Write::Lending(w)], None);
    store
        .commit(commit_one(LendingWrite::StartJourney(first.clone())))
        .await
        .unwrap();
    // The link's second use finds the journey started: single use.
    assert!(matches!(
        store
            .commit(commit_one(LendingWrite::StartJourney(start("browser-b"))))
            .await,
        Err(CommitError::Conflict)
    ));
    let stored = store.journey(&application.id).await.unwrap();
    assert_eq!(stored.as_ref(), Some(&first));
    // The shared account round-trips with the journey.
    let shared = |bank: &str| lendhub_domain::lending::journey::SharedAccount {
        bank: bank.to_owned(),
        name: Some("Trading account".to_owned()),
        balance_pence: Some(-150),
        banking: lendhub_domain::lending::underwriting::Banking {
            months: 12,
            average_monthly_inflow_pence: 8_000_000,
            average_monthly_outflow_pence: 5_000_000,
            ..Default::default()
        },
    };
    let next = first.bank_connected("04000410000010", shared("model_bank"), at(32_000));
    store
        .commit(commit_one(LendingWrite::UpdateJourney(next.clone())))
        .await
        .unwrap();
    // A change computed from the old version loses.
    let stale = first.bank_connected("04000410000002", shared("other_bank"), at(32_000));
    assert!(matches!(
        store
            .commit(commit_one(LendingWrite::UpdateJourney(stale)))
            .await,
        Err(CommitError::Conflict)
    ));
    assert_eq!(store.journey(&application.id).await.unwrap(), Some(next));
}

#[tokio::test]
async fn a_bank_connection_is_found_by_id_and_finishes_once() {
    use lendhub_domain::ids::{BankConnectionId, HubId};
    use lendhub_domain::lending::bank_connection::{BankConnection, Failure, Request, Start};
    let (store, _db) = store().await;
    let owner = partner("test");
    let application = new_application(&owner, 50_000, None);
    insert(store.as_ref(), &application).await;
    let id = BankConnectionId::generate(50_001, 7);
    assert_eq!(store.bank_connection(&id).await.unwrap(), None);
    let started = BankConnection::start(
        Start {
            id: id.clone(),
            owner: owner.clone(),
            application_id: application.id.clone(),
            request: Request {
                bank: "acme_bank".into(),
                return_url: Some("https://partner.example/back".into()),
            },
            authorisation_url: "https://bank.example/authorize?x=1".into(),
            secret: "secret",
            nonce: "nonce".into(),
        },
        at(50_001),
    );
    let commit_one = |w: LendingWrite| set(vec![Write::Lending(w)], None);
    store
        .commit(commit_one(LendingWrite::InsertBankConnection(
            started.clone(),
        )))
        .await
        .unwrap();
    assert_eq!(
        store.bank_connection(&id).await.unwrap(),
        Some(started.clone())
    );
    let shared = lendhub_domain::lending::journey::SharedAccount {
        bank: "acme_bank".to_owned(),
        name: None,
        balance_pence: Some(10),
        banking: lendhub_domain::lending::underwriting::Banking {
            months: 12,
            average_monthly_inflow_pence: 8_000_000,
            average_monthly_outflow_pence: 5_000_000,
            ..Default::default()
        },
    };
    let connected = started.connect("04000410000010", shared, at(50_002));
    store
        .commit(commit_one(LendingWrite::UpdateBankConnection(
            connected.clone(),
        )))
        .await
        .unwrap();
    // A second callback's answer, computed from the first version, loses.
    let refused = started.fail(Failure::ConsentRefused);
    assert!(matches!(
        store
            .commit(commit_one(LendingWrite::UpdateBankConnection(refused)))
            .await,
        Err(CommitError::Conflict)
    ));
    assert_eq!(store.bank_connection(&id).await.unwrap(), Some(connected));
}

#[tokio::test]
async fn an_applications_version_is_probed_per_owner_and_moves_with_each_change() {
    let (store, _db) = store().await;
    let owner = partner("test");
    let application = new_application(&owner, 40_000, None);
    let id = application.id.clone();
    assert_eq!(store.application_version(&owner, &id).await.unwrap(), None);
    insert(store.as_ref(), &application).await;
    assert_eq!(
        store.application_version(&owner, &id).await.unwrap(),
        Some(1)
    );
    assert_eq!(
        store
            .application_version(&partner("live"), &id)
            .await
            .unwrap(),
        None,
        "another owner's application is not there"
    );
    let withdrawn = application
        .withdraw(Some("changed our minds".into()), at(41_000))
        .unwrap()
        .unwrap();
    store
        .commit(set(
            vec![Write::Lending(LendingWrite::UpdateApplication(
                withdrawn.clone(),
            ))],
            None,
        ))
        .await
        .unwrap();
    assert_eq!(
        store.application_version(&owner, &id).await.unwrap(),
        Some(withdrawn.version),
        "a change committed here is seen at once"
    );
}

#[tokio::test]
async fn a_funded_loans_transfers_are_read_back_by_loan() {
    use lendhub_domain::ledger::book::Position;
    use lendhub_domain::ledger::movements;
    use lendhub_domain::money::Money;
    use lendhub_store::{LedgerWrite, LoanPage};
    let (store, _db) = store().await;
    let owner = partner("test");
    let (application, decision) = decided(&owner, 50_000, facts(12));
    store_decided(store.as_ref(), &application, &decision).await;
    let (signed, locked) = application
        .accept(&decision, "Ada".into(), dsb(at(51_000)), at(51_000))
        .unwrap();
    store
        .commit(set(
            vec![
                Write::Lending(LendingWrite::UpdateApplication(signed.clone())),
                Write::Lending(LendingWrite::UpdateDecision(locked)),
            ],
            None,
        ))
        .await
        .unwrap();
    let id = AccountId::generate(52_000, 52_000);
    let funded = paid_out(&signed, &id, at(52_000));
    let account = Account::open(
        id.clone(),
        &funded,
        &decision,
        "test_bank_strong",
        "fps_2".into(),
        at(52_000),
    )
    .unwrap();
    let held = movements::drawdown("dsb_2", &id, Money::pence(1_000_000), at(52_000)).unwrap();
    let posted = held.post("dsb_2.settled", at(52_000)).unwrap();
    let owed = Position {
        principal: Money::pence(1_000_000),
        ..Position::default()
    };
    // A pending transfer is closed in a later commit, as the rail answers.
    let mut writes = vec![
        Write::Lending(LendingWrite::UpdateApplication(funded.clone())),
        Write::Lending(LendingWrite::OpenAccount(account.clone())),
        Write::Ledger(LedgerWrite::Post(held.clone())),
    ];
    let mut closes = vec![Write::Ledger(LedgerWrite::Post(posted.clone()))];
    for i in 1..=4 {
        let paid = movements::collection(
            &format!("pay_{i}.1"),
            &id,
            Money::pence(10_000 * i),
            &owed,
            at(52_000 + i * 1_000),
        )
        .unwrap()
        .for_payment(format!("pay_{i}"));
        let settled = paid.post(format!("pay_{i}.1.settled"), at(52_000 + i * 1_000));
        writes.push(Write::Ledger(LedgerWrite::Post(paid)));
        closes.push(Write::Ledger(LedgerWrite::Post(settled.unwrap())));
    }
    // Another loan whose id sorts just after this one's: not among its
    // transfers.
    let neighbour = AccountId::generate(52_000, 52_001);
    let theirs = movements::drawdown("dsb_3", &neighbour, Money::pence(5), at(52_000)).unwrap();
    writes.push(Write::Ledger(LedgerWrite::Post(theirs)));
    store.commit(set(writes, None)).await.unwrap();
    store.commit(set(closes, None)).await.unwrap();

    let all = store.loan_transfers(&id).await.unwrap();
    assert_eq!(
        all.len(),
        10,
        "the drawdown and four collections, each held and posted"
    );
    assert_eq!(all[0], held, "in the order they were made");
    assert_eq!(
        all[2].payment(),
        Some("pay_1"),
        "a collection names its payment"
    );
    assert!(all.iter().all(|t| t.id() != "dsb_3"));
    // The statement's pages: posted transfers only, from the index.
    let newest = store.loan_posted(&id, &LoanPage::Newest, 3).await.unwrap();
    let ids: Vec<_> = newest.iter().map(|t| t.id()).collect();
    assert_eq!(
        ids,
        ["pay_4.1.settled", "pay_3.1.settled", "pay_2.1.settled"]
    );
    let older = LoanPage::Older {
        at_ms: 54_000,
        id: "pay_2.1.settled".into(),
    };
    let rest = store.loan_posted(&id, &older, 10).await.unwrap();
    let ids: Vec<_> = rest.iter().map(|t| t.id()).collect();
    assert_eq!(ids, ["pay_1.1.settled", "dsb_2.settled"]);
    let newer = LoanPage::Newer {
        at_ms: 54_000,
        id: "pay_2.1.settled".into(),
    };
    let back = store.loan_posted(&id, &newer, 1).await.unwrap();
    assert_eq!(back[0].id(), "pay_3.1.settled", "oldest first");
    let at = store.loan_posted_at(&id, 52_000).await.unwrap();
    assert_eq!(at.len(), 1, "the pending drawdown is not posted");
    match store
        .hub_accounts(
            &owner,
            &AccountQuery {
                page: PageQuery {
                    limit: 10,
                    ..PageQuery::default()
                },
                status: Some("performing"),
                sub_account_id: None,
            },
        )
        .await
        .unwrap()
    {
        AccountPage::Page(p) => assert_eq!(p.items, std::slice::from_ref(&account)),
        AccountPage::UnknownCursor => panic!("no cursor given"),
    }
}

#[tokio::test]
async fn a_payment_moves_version_by_version_and_falls_due_on_its_owners_clock() {
    use lendhub_domain::ids::PaymentId;
    use lendhub_domain::money::Money;
    use lendhub_domain::servicing::collection::Payment;
    let (store, _db) = store().await;
    let owner = partner("test");
    let payment = Payment::link(
        PaymentId::generate(60_000, 60_000),
        owner.clone(),
        AccountId::generate(59_000, 59_000),
        Money::pence(46_589),
        Some("INV-1".into()),
        None,
        None,
        Some(at(60_000 + 3_600_000)),
        at(60_000),
    );
    let one = |w: LendingWrite| set(vec![Write::Lending(w)], None);
    store
        .commit(one(LendingWrite::InsertPayment(payment.clone())))
        .await
        .unwrap();
    let id = payment.id.clone();
    assert_eq!(
        store.payment(&owner, &id).await.unwrap(),
        Some(payment.clone())
    );
    assert_eq!(store.payment(&partner("live"), &id).await.unwrap(), None);
    assert_eq!(
        store.payment_any_owner(&id).await.unwrap(),
        Some(payment.clone())
    );
    // Due at its expiry on the service clock (no test clock for this owner).
    assert!(
        store
            .due_payments(60_000 + 3_599_999, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let due = store.due_payments(60_000 + 3_600_000, 10).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].payment, payment);
    let processing = payment
        .collected("model_bank", "dvrp-1", at(61_000))
        .unwrap();
    store
        .commit(one(LendingWrite::UpdatePayment(processing.clone())))
        .await
        .unwrap();
    let stale = payment
        .failed(
            lendhub_domain::servicing::collection::FailureReason::PayerCancelled,
            None,
        )
        .unwrap();
    assert!(matches!(
        store.commit(one(LendingWrite::UpdatePayment(stale))).await,
        Err(CommitError::Conflict)
    ));
    // Now due when the bank is first asked how it stands.
    assert!(
        store
            .due_payments(61_000 + 9_999, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let due = store.due_payments(61_000 + 10_000, 10).await.unwrap();
    assert_eq!(due[0].payment, processing);
    match store
        .hub_payments(
            &owner,
            &PaymentQuery {
                page: PageQuery {
                    limit: 10,
                    ..PageQuery::default()
                },
                account_id: Some(payment.account_id.to_string()),
                status: Some("processing"),
            },
        )
        .await
        .unwrap()
    {
        PaymentPage::Page(p) => assert_eq!(p.items, std::slice::from_ref(&processing)),
        PaymentPage::UnknownCursor => panic!("no cursor given"),
    }
}

#[tokio::test]
async fn an_account_is_reviewed_from_the_status_it_was_read_in_and_falls_due_on_the_clock() {
    use lendhub_domain::servicing::account::AccountStatus;
    let (store, _db) = store().await;
    let owner = partner("test");
    let account = open_account(store.as_ref(), &owner, 70_000).await;
    let id = account.id.clone();
    let review_at = account.next_review.expect("a first instalment");
    let review_ms = lendhub_domain::clock::unix_ms(review_at);
    assert!(
        store
            .due_accounts(review_ms - 1, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let due = store.due_accounts(review_ms, 10).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].account, account);
    let late = Account {
        status: AccountStatus::InArrears,
        next_review: None,
        ..account.clone()
    };
    let one = |w: LendingWrite| set(vec![Write::Lending(w)], None);
    store
        .commit(one(LendingWrite::UpdateAccount {
            account: late.clone(),
            from: AccountStatus::Performing,
        }))
        .await
        .unwrap();
    // A review computed from the old status loses.
    assert!(matches!(
        store
            .commit(one(LendingWrite::UpdateAccount {
                account: late.clone(),
                from: AccountStatus::Performing,
            }))
            .await,
        Err(CommitError::Conflict)
    ));
    assert_eq!(store.hub_account(&owner, &id).await.unwrap(), Some(late));
    assert!(
        store.due_accounts(review_ms, 10).await.unwrap().is_empty(),
        "no review due in arrears"
    );
}

#[tokio::test]
async fn a_schedule_initiates_each_instalment_once_and_its_mandate_is_revoked_once() {
    use lendhub_domain::ids::{MandateId, PaymentId, ScheduleId};
    use lendhub_domain::money::Money;
    use lendhub_domain::servicing::collection::{Instalment, Payment};
    use lendhub_domain::servicing::mandate::Mandate;
    use lendhub_domain::servicing::schedule::{Cadence, Schedule};
    let (store, _db) = store().await;
    let owner = partner("test");
    let one = |w: LendingWrite| set(vec![Write::Lending(w)], None);
    let start = at(90_000).date().next_day().unwrap();
    let schedule = Schedule::new(
        ScheduleId::generate(90_000, 90_000),
        owner.clone(),
        AccountId::generate(89_000, 89_000),
        Cadence::Weekly,
        Money::pence(10_000),
        start,
        Some(2),
        None,
        at(90_000),
    );
    store
        .commit(one(LendingWrite::InsertSchedule(schedule.clone())))
        .await
        .unwrap();
    let id = schedule.id.clone();
    assert_eq!(
        store.schedule(&owner, &id).await.unwrap(),
        Some(schedule.clone())
    );
    assert_eq!(store.schedule(&partner("live"), &id).await.unwrap(), None);
    let account = schedule.account_id.clone();
    assert_eq!(
        store.account_schedules(&owner, &account).await.unwrap(),
        std::slice::from_ref(&schedule),
        "the account's schedules"
    );
    assert!(
        store
            .account_schedules(&partner("live"), &account)
            .await
            .unwrap()
            .is_empty(),
        "never another owner's"
    );
    let due_ms = lendhub_domain::clock::unix_ms(schedule.due_at().unwrap());
    assert!(
        store
            .due_schedules(due_ms - 1, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let due = store.due_schedules(due_ms, 10).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].schedule, schedule);

    // Two instances initiate the first instalment: one commit wins.
    let child = |n: u128| {
        Payment::instalment(
            PaymentId::generate(91_000, n),
            &schedule,
            Instalment {
                schedule_id: schedule.id.clone(),
                number: 1,
                due_on: start,
            },
            Money::pence(10_000),
            at(91_000),
        )
    };
    let initiate = |p: &Payment| {
        set(
            vec![
                Write::Lending(LendingWrite::UpdateSchedule(schedule.initiated(&p.id))),
                Write::Lending(LendingWrite::InsertPayment(p.clone())),
            ],
            None,
        )
    };
    let (first, second) = (child(1), child(2));
    store.commit(initiate(&first)).await.unwrap();
    assert!(matches!(
        store.commit(initiate(&second)).await,
        Err(CommitError::Conflict)
    ));
    assert_eq!(
        store.payment(&owner, &first.id).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(store.payment(&owner, &second.id).await.unwrap(), None);
    // The database holds to one payment per instalment on its own too.
    let beside = Schedule {
        id: schedule.id.clone(),
        ..schedule.initiated(&second.id).initiated(&second.id)
    };
    assert!(
        store
            .commit(set(
                vec![
                    Write::Lending(LendingWrite::UpdateSchedule(beside)),
                    Write::Lending(LendingWrite::InsertPayment(second.clone())),
                ],
                None,
            ))
            .await
            .is_err(),
        "a second payment for instalment 1"
    );
    let moved = store.schedule(&owner, &id).await.unwrap().unwrap();
    assert_eq!((moved.initiated, moved.version), (1, 2));
    let next_ms = lendhub_domain::clock::unix_ms(moved.due_at().unwrap());
    assert_eq!(next_ms - due_ms, 7 * 86_400_000, "a week on");
    assert!(store.due_schedules(due_ms, 10).await.unwrap().is_empty());

    // The mandate the payer's first authorisation establishes.
    let mandate = Mandate::establish(
        MandateId::generate(92_000, 92_000),
        owner.clone(),
        schedule.account_id.clone(),
        "model_bank",
        first.id.clone(),
        at(92_000),
    );
    store
        .commit(one(LendingWrite::InsertMandate(mandate.clone())))
        .await
        .unwrap();
    let mid = mandate.id.clone();
    assert_eq!(
        store.mandate(&owner, &mid).await.unwrap(),
        Some(mandate.clone())
    );
    assert_eq!(store.mandate(&partner("live"), &mid).await.unwrap(), None);
    assert_eq!(
        store.mandate_any_owner(&mid).await.unwrap(),
        Some(mandate.clone())
    );
    let revoked = mandate.revoked(at(93_000)).unwrap();
    store
        .commit(one(LendingWrite::UpdateMandate(revoked.clone())))
        .await
        .unwrap();
    assert!(matches!(
        store
            .commit(one(LendingWrite::UpdateMandate(revoked.clone())))
            .await,
        Err(CommitError::Conflict)
    ));
    assert_eq!(store.mandate(&owner, &mid).await.unwrap(), Some(revoked));
}

/// A funded loan's account for `owner`, opened at `ms`.
pub async fn open_account(store: &dyn Store, owner: &Tenant, ms: i64) -> Account {
    open_account_via(store, owner, ms, None).await
}

/// `open_account`, for a loan introduced through `sub`.
async fn open_account_via(
    store: &dyn Store,
    owner: &Tenant,
    ms: i64,
    sub: Option<lendhub_domain::ids::SubAccountId>,
) -> Account {
    let (application, decision) = decided(owner, ms, facts(12));
    store_decided(store, &application, &decision).await;
    let (signed, locked) = application
        .accept(&decision, "Ada".into(), dsb(at(ms + 1)), at(ms + 1))
        .unwrap();
    let id = AccountId::generate(ms as u64 + 2, ms as u128 + 2);
    let funded = paid_out(&signed, &id, at(ms + 2));
    let account = Account::open(
        id,
        &funded,
        &locked,
        "test_bank_strong",
        "fps_9".into(),
        at(ms + 2),
    )
    .unwrap();
    let account = Account {
        sub_account_id: sub,
        ..account
    };
    store
        .commit(set(
            vec![
                Write::Lending(LendingWrite::UpdateApplication(signed)),
                Write::Lending(LendingWrite::UpdateDecision(locked)),
            ],
            None,
        ))
        .await
        .unwrap();
    store
        .commit(set(
            vec![
                Write::Lending(LendingWrite::UpdateApplication(funded)),
                Write::Lending(LendingWrite::OpenAccount(account.clone())),
            ],
            None,
        ))
        .await
        .unwrap();
    account
}

#[tokio::test]
async fn a_companys_accounts_are_read_across_partners_in_one_environment() {
    let (store, _db) = store().await;
    let one = Tenant::partner("pk_live_one", false, None);
    let two = Tenant::partner("pk_live_two", false, None);
    let live = Tenant::partner("pk_live_one", true, None);
    let first = open_account(store.as_ref(), &one, 100_000).await;
    let second = open_account(store.as_ref(), &two, 110_000).await;
    let elsewhere = open_account(store.as_ref(), &live, 120_000).await;
    assert_eq!(first.borrower(), "00000401/test");
    assert_eq!(elsewhere.borrower(), "00000401/live");
    let query = |status: Option<&'static str>| AccountQuery {
        page: PageQuery {
            limit: 10,
            ..PageQuery::default()
        },
        status,
        sub_account_id: None,
    };
    let ids = |page: AccountPage| match page {
        AccountPage::Page(p) => p.items.into_iter().map(|a| a.id).collect::<Vec<_>>(),
        AccountPage::UnknownCursor => panic!("no cursor given"),
    };
    let test = store
        .company_accounts("00000401/test", &query(None))
        .await
        .unwrap();
    assert_eq!(
        ids(test),
        vec![second.id.clone(), first.id.clone()],
        "newest first"
    );
    let performing = store
        .company_accounts("00000401/test", &query(Some("performing")))
        .await
        .unwrap();
    assert_eq!(ids(performing).len(), 2);
    assert!(
        ids(store
            .company_accounts("00000402/test", &query(None))
            .await
            .unwrap())
        .is_empty(),
        "another company's"
    );
    assert_eq!(
        store
            .company_account("00000401/test", &first.id)
            .await
            .unwrap(),
        Some(first.clone())
    );
    assert_eq!(
        store
            .company_account("00000401/test", &elsewhere.id)
            .await
            .unwrap(),
        None,
        "the live environment's is not the test one's"
    );
}

#[tokio::test]
async fn sub_accounts_are_owned_and_an_account_keeps_the_one_it_was_introduced_through() {
    use lendhub_domain::ids::SubAccountId;
    use lendhub_domain::partner::sub_account::SubAccount;
    let (store, _db) = store().await;
    let owner = partner("test");
    let subs: Vec<SubAccount> = (0..3)
        .map(|n| SubAccount {
            id: SubAccountId::generate(130_000 + n, u128::from(n)),
            owner: owner.clone(),
            name: format!("Broker {n}"),
            revenue_share_bps: 500,
            created_at: at(130_000 + n as i64),
            payout_account: None,
        })
        .collect();
    for s in &subs {
        store
            .commit(set(
                vec![Write::Commercial(CommercialWrite::InsertSubAccount(
                    s.clone(),
                ))],
                None,
            ))
            .await
            .unwrap();
    }
    let id = subs[1].id.clone();
    assert_eq!(
        store.sub_account(&owner, &id).await.unwrap(),
        Some(subs[1].clone())
    );
    assert_eq!(
        store.sub_account(&partner("live"), &id).await.unwrap(),
        None
    );
    let page = |starting_after: Option<String>| PageQuery {
        limit: 2,
        starting_after,
        ..PageQuery::default()
    };
    match store.sub_accounts(&owner, &page(None)).await.unwrap() {
        SubAccountPage::Page(p) => {
            assert_eq!(
                p.items,
                vec![subs[2].clone(), subs[1].clone()],
                "newest first"
            );
            assert!(p.has_more);
        }
        SubAccountPage::UnknownCursor => panic!("no cursor given"),
    }
    match store
        .sub_accounts(&owner, &page(Some(id.to_string())))
        .await
        .unwrap()
    {
        SubAccountPage::Page(p) => assert_eq!(p.items, vec![subs[0].clone()]),
        SubAccountPage::UnknownCursor => panic!("a cursor of this owner's"),
    }
    assert!(matches!(
        store
            .sub_accounts(&partner("live"), &page(Some(id.to_string())))
            .await
            .unwrap(),
        SubAccountPage::UnknownCursor
    ));

    // Accounts of loans introduced through one, and one introduced by none.
    let via = open_account_via(store.as_ref(), &owner, 140_000, Some(subs[0].id.clone())).await;
    let direct = open_account(store.as_ref(), &owner, 150_000).await;
    let query = |sub: Option<String>, status: Option<&'static str>| AccountQuery {
        page: PageQuery {
            limit: 10,
            ..PageQuery::default()
        },
        status,
        sub_account_id: sub,
    };
    let ids = |page: AccountPage| match page {
        AccountPage::Page(p) => p.items.into_iter().map(|a| a.id).collect::<Vec<_>>(),
        AccountPage::UnknownCursor => panic!("no cursor given"),
    };
    let sub = Some(subs[0].id.to_string());
    assert_eq!(
        ids(store
            .hub_accounts(&owner, &query(sub.clone(), None))
            .await
            .unwrap()),
        vec![via.id.clone()]
    );
    assert_eq!(
        ids(store
            .hub_accounts(&owner, &query(sub, Some("performing")))
            .await
            .unwrap()),
        vec![via.id.clone()]
    );
    assert_eq!(
        ids(store
            .hub_accounts(&owner, &query(None, None))
            .await
            .unwrap()),
        vec![direct.id, via.id.clone()],
        "unfiltered: both"
    );
    assert_eq!(
        store
            .hub_account(&owner, &via.id)
            .await
            .unwrap()
            .unwrap()
            .sub_account_id,
        Some(subs[0].id.clone())
    );
}

#[tokio::test]
async fn an_introduction_is_one_per_application_and_paged_by_sub_account() {
    use lendhub_domain::ids::{IntroductionId, SubAccountId};
    use lendhub_domain::lending::introduction::Introduction;
    let (store, _db) = store().await;
    let owner = partner("test");
    let subs = [
        SubAccountId::generate(170_000, 1),
        SubAccountId::generate(170_000, 2),
    ];
    let mut made = Vec::new();
    for n in 0..3u64 {
        let application = new_application(&owner, 171_000 + n as i64, None);
        insert(store.as_ref(), &application).await;
        let intro = Introduction {
            id: IntroductionId::generate(172_000 + n, u128::from(n)),
            owner: owner.clone(),
            sub_account_id: subs[(n % 2) as usize].clone(),
            application_id: application.id.clone(),
            introduced_at: at(172_000 + n as i64),
        };
        store
            .commit(set(
                vec![Write::Commercial(CommercialWrite::InsertIntroduction(
                    intro.clone(),
                ))],
                None,
            ))
            .await
            .unwrap();
        made.push(intro);
    }
    // A second introduction of the same application is refused.
    let twice = Introduction {
        id: IntroductionId::generate(173_000, 9),
        ..made[0].clone()
    };
    assert!(
        store
            .commit(set(
                vec![Write::Commercial(CommercialWrite::InsertIntroduction(
                    twice
                ))],
                None,
            ))
            .await
            .is_err()
    );
    let query = |sub: Option<&SubAccountId>| IntroductionQuery {
        page: PageQuery {
            limit: 10,
            ..PageQuery::default()
        },
        sub_account_id: sub.map(ToString::to_string),
    };
    let items = |page: IntroductionPage| match page {
        IntroductionPage::Page(p) => p.items,
        IntroductionPage::UnknownCursor => panic!("no cursor given"),
    };
    assert_eq!(
        items(store.introductions(&owner, &query(None)).await.unwrap()),
        vec![made[2].clone(), made[1].clone(), made[0].clone()]
    );
    assert_eq!(
        items(
            store
                .introductions(&owner, &query(Some(&subs[0])))
                .await
                .unwrap()
        ),
        vec![made[2].clone(), made[0].clone()]
    );
    assert!(
        items(
            store
                .introductions(&partner("live"), &query(None))
                .await
                .unwrap()
        )
        .is_empty()
    );
}

/// Ids made in the same millisecond whose random bits differ only at the end
/// (SQLite stores the first under the row key they share, the others under
/// other keys) are each found by their own id, by owner and by any owner, and
/// a change to one changes only it.
#[tokio::test]
async fn applications_made_in_one_millisecond_are_each_found_by_their_id() {
    let (store, _db) = store().await;
    let owner = partner("test");
    let apps: Vec<Application> = (1..=3)
        .map(|random| {
            let mut app = new_application(&owner, 45_000, None);
            app.id = ApplicationId::generate(45_000, random);
            app
        })
        .collect();
    for app in &apps {
        insert(store.as_ref(), app).await;
    }
    let withdrawn = apps[1].withdraw(None, at(46_000)).unwrap().unwrap();
    store
        .commit(set(
            vec![Write::Lending(LendingWrite::UpdateApplication(
                withdrawn.clone(),
            ))],
            None,
        ))
        .await
        .unwrap();
    let now = [apps[0].clone(), withdrawn, apps[2].clone()];
    for app in &now {
        let id = app.id.clone();
        assert_eq!(
            store.hub_application(&owner, &id).await.unwrap().as_ref(),
            Some(app)
        );
        assert_eq!(
            store.application_any_owner(&id).await.unwrap().as_ref(),
            Some(app)
        );
        assert_eq!(
            store.application_version(&owner, &id).await.unwrap(),
            Some(app.version)
        );
        let elsewhere = store.hub_application(&partner("live"), &id).await.unwrap();
        assert!(elsewhere.is_none(), "another owner's application");
    }
    let unknown = ApplicationId::generate(45_000, 4);
    assert!(
        store
            .application_any_owner(&unknown)
            .await
            .unwrap()
            .is_none()
    );
}

fn dsb(at: time::OffsetDateTime) -> DisbursementId {
    DisbursementId::generate(lendhub_domain::clock::unix_ms(at) as u64, 1)
}

/// `signed` paid out into account `id`: its disbursement claimed and
/// settled, stored as one change of the row (the flow commits the claim
/// first; these tests are about what the store keeps).
fn paid_out(signed: &Application, id: &AccountId, at: time::OffsetDateTime) -> Application {
    let funded = signed
        .claim_disbursement(at)
        .and_then(|claimed| claimed.fund(id.clone(), "fps_1", at))
        .unwrap();
    Application {
        version: signed.version + 1,
        ..funded
    }
}

#[tokio::test]
async fn an_outbound_payment_is_recorded_once_and_found_by_its_end_to_end_id() {
    use lendhub_domain::money::Money;
    use lendhub_domain::payout_rail::{Kind, RailPayment};
    let (store, _db) = store().await;
    let owner = partner("live");
    let payment = RailPayment {
        end_to_end_id: "dsb_01JZ0000000000000000000001".to_owned(),
        owner: owner.clone(),
        kind: Kind::Disbursement,
        subject_id: "app_01JZ0000000000000000000001".to_owned(),
        amount: Money::pence(1_000_000),
        created_at: at(60_000),
    };
    assert_eq!(
        store.rail_payment(&payment.end_to_end_id).await.unwrap(),
        None
    );
    let record = |p: RailPayment| {
        set(
            vec![Write::Lending(LendingWrite::RecordRailPayment(p))],
            None,
        )
    };
    store.commit(record(payment.clone())).await.unwrap();
    // Found by its id alone, whoever owns it: the rail's webhook names
    // nothing else.
    assert_eq!(
        store.rail_payment(&payment.end_to_end_id).await.unwrap(),
        Some(payment.clone())
    );
    // One payment per end-to-end id: a second record is refused whole.
    let again = RailPayment {
        subject_id: "app_01JZ0000000000000000000002".to_owned(),
        ..payment.clone()
    };
    assert!(store.commit(record(again)).await.is_err());
    assert_eq!(
        store.rail_payment(&payment.end_to_end_id).await.unwrap(),
        Some(payment)
    );
    assert_eq!(store.rail_payment("dsb_unknown").await.unwrap(), None);
}

/// The credit model's roles (one model a role, replaced or cleared) and
/// its shadow scores, newest first (issue #48 item 3).
#[tokio::test]
async fn model_roles_are_set_and_cleared_and_shadow_scores_read_newest_first() {
    use lendhub_domain::credit_model::ModelRef;
    use lendhub_domain::credit_model::registry::{Role, Roles, ShadowScore};
    use lendhub_domain::sandbox::decisioning::Outcome;
    let (store, _db) = store().await;
    assert_eq!(store.model_roles().await.unwrap(), Roles::default());
    let model = |v: &str| ModelRef {
        id: "pd-scorecard".into(),
        version: v.into(),
    };
    let set = |role, m: Option<ModelRef>| {
        let store = store.clone();
        async move {
            let mut writes = WriteSet::default();
            writes.push(LendingWrite::SetModelRole {
                role,
                model: m,
                at: at(1_000),
            });
            store.commit(writes).await.unwrap();
        }
    };
    set(Role::Challenger, Some(model("1"))).await;
    set(Role::Challenger, Some(model("2"))).await;
    set(Role::Champion, Some(model("1"))).await;
    assert_eq!(
        store.model_roles().await.unwrap(),
        Roles {
            champion: Some(model("1")),
            challenger: Some(model("2")),
        }
    );
    set(Role::Challenger, None).await;
    assert_eq!(store.model_roles().await.unwrap().challenger, None);

    let shadow = |n: u128, ms: i64| ShadowScore {
        decision_id: DecisionId::generate(1, n),
        owner: Tenant::partner("pk_live_conformance", false, None),
        champion: model("1"),
        champion_probability: 0.012_345_678_901_234_5,
        champion_outcome: Outcome::Approved,
        challenger: model("2"),
        probability: 0.3,
        outcome: Outcome::Declined,
        scored_at: at(ms),
    };
    for (n, ms) in [(1, 2_000), (2, 3_000), (1, 4_000)] {
        let mut writes = WriteSet::default();
        writes.push(LendingWrite::InsertShadowScore(shadow(n, ms)));
        store.commit(writes).await.unwrap();
    }
    let newest = store.shadow_scores(2).await.unwrap();
    assert_eq!(newest, vec![shadow(1, 4_000), shadow(2, 3_000)]);
    assert_eq!(store.shadow_scores(10).await.unwrap().len(), 3);
}

/// Model monitoring's storage (issue #48 item 5): a week's decisions read
/// in pages by when they were made, across partners; a week's run
/// scheduled once, asked for again, done with its report; and a drift
/// alert raised once per week, environment and model.
#[tokio::test]
async fn a_weeks_decisions_are_paged_and_its_monitoring_run_and_alerts_are_kept_once() {
    use lendhub_domain::credit_model::ModelRef;
    use lendhub_domain::credit_model::drift::Monitor;
    use lendhub_domain::partner::credentials::Environment;
    let (store, _db) = store().await;
    let (a, b) = (partner("test"), partner("live"));
    // Three decisions in the week [10 000, 20 000), one either side.
    for (owner, ms) in [
        (&a, 9_999),
        (&a, 10_000),
        (&b, 12_000),
        (&a, 15_000),
        (&b, 20_000),
    ] {
        let (application, decision) = decided(owner, ms, facts(12));
        store_decided(store.as_ref(), &application, &decision).await;
    }
    let first = store
        .decided_between(10_000, 20_000, None, 2)
        .await
        .unwrap();
    assert_eq!(
        first.iter().map(|(ms, _)| *ms).collect::<Vec<_>>(),
        [10_000, 12_000]
    );
    let (ms, last) = &first[1];
    let rest = store
        .decided_between(10_000, 20_000, Some((*ms, &last.id)), 2)
        .await
        .unwrap();
    assert_eq!(rest.len(), 1);
    assert_eq!((rest[0].0, &rest[0].1.owner), (15_000, &a));

    let week = time::macros::date!(2026 - 11 - 23);
    let commit = |w: LendingWrite| {
        let store = store.clone();
        async move {
            let mut writes = WriteSet::default();
            writes.push(w);
            store.commit(writes).await
        }
    };
    commit(LendingWrite::ScheduleMonitoring { week, due_ms: 50 })
        .await
        .unwrap();
    commit(LendingWrite::ScheduleMonitoring { week, due_ms: 70 })
        .await
        .unwrap();
    assert_eq!(store.due_monitoring(49, 10).await.unwrap(), []);
    assert_eq!(store.due_monitoring(60, 10).await.unwrap(), [(week, 50)]);
    commit(LendingWrite::RequestMonitoring { week, at_ms: 80 })
        .await
        .unwrap();
    let mut monitor = Monitor::new(1);
    for (_, d) in first.iter().chain(&rest) {
        monitor.add(d);
    }
    let report = monitor.report(week, at(90));
    // A run answering the earlier request is not kept over the newer one.
    commit(LendingWrite::Monitored {
        report: report.clone(),
        requested_at_ms: 50,
        at_ms: 90,
    })
    .await
    .unwrap();
    commit(LendingWrite::Monitored {
        report: report.clone(),
        requested_at_ms: 80,
        at_ms: 95,
    })
    .await
    .unwrap();
    let run = store.monitoring_run(week).await.unwrap().unwrap();
    assert_eq!((run.requested_at_ms, run.done_at_ms), (80, Some(95)));
    assert_eq!(run.report.as_ref(), Some(&report));
    assert_eq!(store.due_monitoring(1_000, 10).await.unwrap(), []);
    assert_eq!(store.monitoring_reports(5).await.unwrap(), [report]);

    let alert = |environment| LendingWrite::RaiseDriftAlert {
        week,
        environment,
        model: ModelRef {
            id: "pd-scorecard".into(),
            version: "1".into(),
        },
        at_ms: 100,
    };
    commit(alert(Environment::Live)).await.unwrap();
    assert!(matches!(
        commit(alert(Environment::Live)).await,
        Err(CommitError::Conflict)
    ));
    commit(alert(Environment::Test)).await.unwrap();
}

/// Signed agreements (issue #51 item 1): the newest one signed for an
/// application is read back as signed, only by its owner, and the
/// database refuses to alter or delete one.
#[tokio::test]
async fn a_signed_agreement_is_kept_as_signed() {
    use lendhub_domain::lending::agreement::{Figures, Lender, Signed};
    use lendhub_domain::money::Money;
    let (store, db) = store().await;
    let (owner, other) = (partner("test"), partner("live"));
    let application = ApplicationId::generate(1, 1);
    let signed = |ms: i64, by: &str| Signed {
        id: "agr_01".into(),
        application_id: application.to_string(),
        decision_id: "dec_01".into(),
        template: "loan-agreement/1".into(),
        figures: Figures {
            lender: Lender {
                legal_name: "Lender Ltd".into(),
                address: "1 High Street".into(),
                registration: "Company number 00000001".into(),
                complaints: "complaints@lender.example".into(),
            },
            borrower_name: "Widgets Ltd".into(),
            borrower_number: "00000401".into(),
            signer: Some(by.into()),
            application_id: application.to_string(),
            decision_id: "dec_01".into(),
            reference: Some("INV-1".into()),
            amount: Money::pence(1_000_000),
            term_months: 12,
            annual_rate_bps: 990,
            apr: 10.4,
            monthly: Money::pence(87_896),
            total_repayable: Money::pence(1_054_752),
            total_interest: Money::pence(54_752),
            schedule: Vec::new(),
        },
        content: format!("# Loan agreement\nSigned by {by}. £10,000.00"),
        content_sha256: "ab".repeat(32),
        signed_by: by.into(),
        signed_at: at(ms),
        ip_address: Some("203.0.113.7".into()),
    };
    assert_eq!(store.agreement(&owner, &application).await.unwrap(), None);
    for (ms, by) in [(2_000, "Ada Lovelace"), (5_000, "Ada King")] {
        let mut writes = WriteSet::default();
        writes.push(LendingWrite::RecordAgreement {
            owner: owner.clone(),
            agreement: signed(ms, by),
        });
        store.commit(writes).await.unwrap();
    }
    assert_eq!(
        store.agreement(&owner, &application).await.unwrap(),
        Some(signed(5_000, "Ada King"))
    );
    assert_eq!(store.agreement(&other, &application).await.unwrap(), None);
    for sql in [
        "UPDATE hub_agreements SET body = '{}'",
        "DELETE FROM hub_agreements",
    ] {
        let refused = db.execute_raw(sql).await.unwrap_err();
        assert!(refused.contains("kept as signed"), "{sql}: {refused}");
    }
}
