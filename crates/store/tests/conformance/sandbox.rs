//! The sandbox context: clients, referral reviews, resets, retention.

use lendhub_domain::sandbox::application::Application;
use lendhub_domain::sandbox::decisioning::decide;
use lendhub_domain::sandbox::events::EventType;
use lendhub_domain::sandbox::ids::SandboxId;
use lendhub_store::*;

use crate::support::*;
use lendhub_system::NewRandom;

#[tokio::test]
async fn prune_drops_old_keys_and_revocation_is_once() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    store.commit(set(vec![], Some("old-key"))).await.unwrap();
    let mut fresh = set(vec![], None);
    fresh.idempotency = Some(idempotency("new-key", 50_000));
    store.commit(fresh).await.unwrap();
    assert_eq!(
        store
            .prune(Retention {
                idempotency_before_ms: 10_000,
                tokens_expired_before_ms: 10_000,
                events_before_ms: 0,
                journeys_before_ms: 0,
            })
            .await
            .unwrap(),
        1
    );
    assert!(
        store
            .idempotency(&tenant(OWNER), "old-key")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .idempotency(&tenant(OWNER), "new-key")
            .await
            .unwrap()
            .is_some()
    );
    assert!(store.revoke_client(OWNER, 1).await.unwrap());
    assert_eq!(
        store.client(OWNER).await.unwrap().unwrap().status,
        ClientStatus::Revoked
    );
    assert!(
        !store.revoke_client(OWNER, 2).await.unwrap(),
        "already revoked"
    );
    assert!(!store.revoke_client("pk_test_nobody", 3).await.unwrap());
}

/// A referred application is due for review a day after its decision on its
/// owner's clock, and is no longer due once settled.
#[tokio::test]
async fn referral_reviews_fall_due_on_their_owners_clock() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    let referred = Application::new(
        SandboxId::new_random(1_000),
        tenant(OWNER),
        "00000402".into(),
        lendhub_domain::money::Money::pence(1_000_000),
        decide("00000402", 1_000_000),
        at(1_000),
    );
    let approved = application(1_000);
    store
        .commit(set(
            vec![
                Write::Sandbox(SandboxWrite::InsertApplication(record(&referred))),
                Write::Sandbox(SandboxWrite::InsertApplication(record(&approved))),
            ],
            None,
        ))
        .await
        .unwrap();
    let due_ms = 1_000 + 86_400_000;
    assert!(
        store
            .due_referrals(None, due_ms - 1, 10)
            .await
            .unwrap()
            .is_empty()
    );
    store.commit(set_clock(OWNER, 0, 1)).await.unwrap();
    let due = store.due_referrals(None, due_ms - 1, 10).await.unwrap();
    assert_eq!(due.len(), 1, "one millisecond ahead, it is due");
    assert_eq!(due[0].application.id, referred.id);
    assert_eq!(due[0].clock_offset_ms, 1);
    assert_eq!(
        store
            .due_referrals(Some(&tenant(OWNER)), due_ms, 10)
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(
        store
            .due_referrals(Some(&tenant(OTHER)), due_ms, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let settled = referred.settle_referral(at(due_ms)).unwrap();
    store
        .commit(set(
            vec![Write::Sandbox(SandboxWrite::UpdateApplication(record(
                &settled,
            )))],
            None,
        ))
        .await
        .unwrap();
    assert!(
        store
            .due_referrals(None, i64::MAX, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        matches!(
            store
                .commit(set(
                    vec![Write::Sandbox(SandboxWrite::UpdateApplication(record(
                        &settled
                    )))],
                    None
                ))
                .await,
            Err(CommitError::Conflict)
        ),
        "a review is settled once"
    );
}

/// A reset removes everything one owner has and puts its clock back; the
/// other owner keeps everything, and the owner's event log still moves on.
#[tokio::test]
async fn a_reset_removes_one_owners_rows_only() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    store.insert_client(client_named(OTHER)).await.unwrap();
    store.commit(set_clock(OWNER, 0, 5_000)).await.unwrap();
    let mut apps = Vec::new();
    for owner in [OWNER, OTHER] {
        let mut app = application(1_000);
        app.owner = tenant(owner);
        let funded = app
            .accept(
                lendhub_domain::sandbox::payment::BankAccount::BankSettle,
                SandboxId::new_random(1_000),
                at(1_000),
            )
            .unwrap();
        let payment = funded.funding.clone().unwrap();
        let mut writes = set(
            vec![
                Write::Events(EventWrite::InsertEndpoint {
                    record: EndpointRecord {
                        endpoint: endpoint_of(owner),
                        sealed_secret: vec![1],
                    },
                    max_per_owner: 16,
                }),
                Write::Sandbox(SandboxWrite::InsertApplication(record(&app))),
                Write::Sandbox(SandboxWrite::InsertPayment(payment)),
                Write::Events(EventWrite::InsertEvent(event_of(
                    owner,
                    EventType::ApplicationCreated,
                    1_000,
                ))),
            ],
            None,
        );
        writes.idempotency = Some(IdempotencyRecord {
            owner: tenant(owner),
            ..idempotency("made-it", 1_000)
        });
        store.commit(writes).await.unwrap();
        apps.push(app);
    }
    let before = store.event_log_position(&tenant(OWNER)).await.unwrap();
    let mut reset = set(
        vec![Write::Sandbox(SandboxWrite::ResetOwner {
            owner: tenant(OWNER),
            keep_key: Some("reset-key".into()),
        })],
        None,
    );
    reset.idempotency = Some(idempotency("reset-key", 2_000));
    store.commit(reset).await.unwrap();

    assert!(
        store
            .application(&tenant(OWNER), &apps[0].id)
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(event_count(store.as_ref()).await, 0);
    assert_eq!(
        store.event_log_position(&tenant(OWNER)).await.unwrap(),
        None
    );
    assert!(store.endpoints(&tenant(OWNER)).await.unwrap().is_empty());
    assert!(
        store
            .idempotency(&tenant(OWNER), "made-it")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .idempotency(&tenant(OWNER), "reset-key")
            .await
            .unwrap()
            .is_some(),
        "the reset's own key stays, so a retry replays it"
    );
    assert!(
        matches!(
            store.commit(set_clock(OWNER, 5_000, 6_000)).await,
            Err(CommitError::Conflict)
        ),
        "the clock is back at zero"
    );
    store.commit(set_clock(OWNER, 0, 0)).await.unwrap();
    assert!(
        store
            .claim_deliveries(&claim_at(i64::MAX, 0))
            .await
            .unwrap()
            .iter()
            .all(|c| c.delivery.owner == tenant(OTHER)),
        "the owner's deliveries are gone"
    );

    assert!(
        store
            .application(&tenant(OTHER), &apps[1].id)
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(store.endpoints(&tenant(OTHER)).await.unwrap().len(), 1);
    assert!(
        store
            .idempotency(&tenant(OTHER), "made-it")
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        store
            .event_log_position(&tenant(OTHER))
            .await
            .unwrap()
            .is_some()
    );

    store
        .commit(set(
            vec![Write::Events(EventWrite::InsertEvent(event(
                EventType::ApplicationCreated,
                3_000,
            )))],
            None,
        ))
        .await
        .unwrap();
    assert!(
        store.event_log_position(&tenant(OWNER)).await.unwrap() > before,
        "positions are never reused, so a page kept from before is never served"
    );
}

/// Test clocks belong to owners, not to sandbox clients: a REST-tier test
/// environment (`<client>/test`), which has no sandbox client, has one too.
/// Each advance names the offset it moves from, so of two computed from the
/// same reading only the first commits.
#[tokio::test]
async fn any_owner_has_a_test_clock_that_moves_only_from_where_it_was() {
    let (store, _db) = store().await;
    let partner_test = "pc_conformance/test";
    assert_eq!(store.clock_offset(&tenant(partner_test)).await.unwrap(), 0);
    assert!(
        matches!(
            store.commit(set_clock(partner_test, 5, 10)).await,
            Err(CommitError::Conflict)
        ),
        "a clock never moved reads zero, not five"
    );
    store
        .commit(set_clock(partner_test, 0, 60_000))
        .await
        .unwrap();
    assert_eq!(
        store.clock_offset(&tenant(partner_test)).await.unwrap(),
        60_000
    );
    assert!(
        matches!(
            store.commit(set_clock(partner_test, 0, 1)).await,
            Err(CommitError::Conflict)
        ),
        "a second advance from the same reading is refused"
    );
    store
        .commit(set_clock(partner_test, 60_000, 120_000))
        .await
        .unwrap();
    assert_eq!(
        store.clock_offset(&tenant(partner_test)).await.unwrap(),
        120_000
    );
    assert_eq!(
        store
            .clock_offset(&tenant("pc_conformance/live"))
            .await
            .unwrap(),
        0,
        "each owner has its own"
    );
}

/// What a bearer check learns from the store (its client's status, the
/// client's clock) moves the epoch instances poll to forget remembered
/// clients; a new client, which no instance can have remembered, does not.
#[tokio::test]
async fn the_sandbox_epoch_moves_with_revocations_and_clocks_not_with_new_clients() {
    let (store, _db) = store().await;
    let start = store.sandbox_epoch().await.unwrap();
    store.insert_client(active_client()).await.unwrap();
    assert_eq!(store.sandbox_epoch().await.unwrap(), start, "a new client");

    store.commit(set_clock(OWNER, 0, 60_000)).await.unwrap();
    let moved = store.sandbox_epoch().await.unwrap();
    assert!(moved > start, "a clock's first move");
    store
        .commit(set_clock(OWNER, 60_000, 120_000))
        .await
        .unwrap();
    let again = store.sandbox_epoch().await.unwrap();
    assert!(again > moved, "a clock's later move");

    store
        .commit(set(
            vec![Write::Sandbox(SandboxWrite::ResetOwner {
                owner: tenant(OWNER),
                keep_key: None,
            })],
            None,
        ))
        .await
        .unwrap();
    let reset = store.sandbox_epoch().await.unwrap();
    assert!(reset > again, "a reset puts the clock back");
    assert_eq!(store.clock_offset(&tenant(OWNER)).await.unwrap(), 0);

    assert!(store.revoke_client(OWNER, 1).await.unwrap());
    assert!(store.sandbox_epoch().await.unwrap() > reset, "a revocation");
}

/// Ids made in the same millisecond whose random bits differ only at the end
/// (SQLite stores both under the first one's row key, the second under
/// another) are each found by their own id and owner, before and after a
/// change.
#[tokio::test]
async fn applications_made_in_one_millisecond_are_each_found_by_their_id() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    let made = |random: u128| {
        let mut app = application(7_000);
        app.id = SandboxId::generate(7_000, random);
        app
    };
    let apps = [made(1), made(2), made(3)];
    for app in &apps {
        store
            .commit(set(
                vec![Write::Sandbox(SandboxWrite::InsertApplication(record(app)))],
                None,
            ))
            .await
            .unwrap();
    }
    let owner = tenant(OWNER);
    for app in &apps {
        let id = &app.id;
        let rendered = store.rendered_application(&owner, id).await.unwrap();
        assert_eq!(rendered.map(|r| r.body), Some(record(app).rendered));
        let stored = store.application(&owner, id).await.unwrap();
        assert_eq!(stored.map(|a| a.id), Some(app.id.clone()));
        let version = store.sandbox_application_version(&owner, id).await;
        assert_eq!(version.unwrap(), Some(app.version));
        let other = store.rendered_application(&tenant(OTHER), id).await;
        assert!(other.unwrap().is_none(), "another owner's application");
    }
    let unknown = SandboxId::<lendhub_domain::sandbox::ids::kind::Application>::generate(7_000, 4);
    let missing = store.rendered_application(&owner, &unknown).await;
    assert!(missing.unwrap().is_none(), "an id never stored");
}
