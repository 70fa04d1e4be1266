//! The unit of work: write sets commit whole or not at all; idempotency keys claim once per owner and expire on the owner's clock.

use lendhub_domain::sandbox::events::EventType;
use lendhub_store::*;

use crate::support::*;

#[tokio::test]
async fn a_taken_idempotency_key_fails_the_whole_write_set() {
    let (store, _db) = store().await;
    let first = application(1_000);
    store
        .commit(set(
            vec![
                Write::Sandbox(SandboxWrite::InsertApplication(record(&first))),
                Write::Events(EventWrite::InsertEvent(event(
                    EventType::ApplicationCreated,
                    1_000,
                ))),
            ],
            Some("key-1"),
        ))
        .await
        .unwrap();
    let second = application(1_001);
    let err = store
        .commit(set(
            vec![
                Write::Sandbox(SandboxWrite::InsertApplication(record(&second))),
                Write::Events(EventWrite::InsertEvent(event(
                    EventType::ApplicationCreated,
                    1_001,
                ))),
            ],
            Some("key-1"),
        ))
        .await;
    assert!(matches!(err, Err(CommitError::IdempotencyKeyTaken)));
    assert!(
        store
            .application(&tenant(OWNER), &second.id)
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(event_count(store.as_ref()).await, 1);
    assert_eq!(
        store
            .idempotency(&tenant(OWNER), "key-1")
            .await
            .unwrap()
            .unwrap()
            .status,
        201
    );
    assert!(
        store
            .idempotency(&tenant("pk_test_other"), "key-1")
            .await
            .unwrap()
            .is_none(),
        "keys are per owner"
    );
}

/// A key claimed before a restart is still claimed after it, and each of
/// many keys claimed at once is found by the store that claimed it and by
/// another store on the same database.
#[tokio::test]
async fn idempotency_keys_are_found_by_every_store_and_after_a_restart() {
    let db = Database::fresh().await;
    let first = db.open().await;
    let claims: Vec<_> = (0..64i64)
        .map(|n| {
            let store = first.clone();
            tokio::spawn(async move {
                let app = application(2_000 + n);
                let writes = vec![Write::Sandbox(SandboxWrite::InsertApplication(record(
                    &app,
                )))];
                store.commit(set(writes, Some(&format!("many-{n}")))).await
            })
        })
        .collect();
    for claim in claims {
        claim.await.unwrap().unwrap();
    }
    let second = db.open().await;
    for n in [0, 31, 63] {
        let key = format!("many-{n}");
        for store in [&first, &second] {
            assert!(
                store
                    .idempotency(&tenant(OWNER), &key)
                    .await
                    .unwrap()
                    .is_some(),
                "{key}"
            );
        }
    }
    first.close().await;
    drop(first);
    let restarted = db.open().await;
    assert!(
        restarted
            .idempotency(&tenant(OWNER), "many-7")
            .await
            .unwrap()
            .is_some()
    );
    let again = restarted
        .commit(set(
            vec![Write::Sandbox(SandboxWrite::InsertApplication(record(
                &application(3_000),
            )))],
            Some("many-7"),
        ))
        .await;
    assert!(
        matches!(again, Err(CommitError::IdempotencyKeyTaken)),
        "{again:?}"
    );
    assert!(
        restarted
            .idempotency(&tenant(OWNER), "many-64")
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_stale_version_fails_the_whole_write_set() {
    let (store, _db) = store().await;
    let app = application(1_000);
    store
        .commit(set(
            vec![Write::Sandbox(SandboxWrite::InsertApplication(record(
                &app,
            )))],
            None,
        ))
        .await
        .unwrap();
    // Probed once before the update, so that a remembered answer would show.
    assert_eq!(
        store
            .sandbox_application_version(&tenant(OWNER), &app.id)
            .await
            .unwrap(),
        Some(1)
    );
    let mut next = app.clone();
    next.version = 2;
    store
        .commit(set(
            vec![Write::Sandbox(SandboxWrite::UpdateApplication(record(
                &next,
            )))],
            None,
        ))
        .await
        .unwrap();
    // A second writer that read version 1 too.
    let err = store
        .commit(set(
            vec![
                Write::Sandbox(SandboxWrite::UpdateApplication(record(&next))),
                Write::Events(EventWrite::InsertEvent(event(
                    EventType::OfferAccepted,
                    2_000,
                ))),
            ],
            None,
        ))
        .await;
    assert!(matches!(err, Err(CommitError::Conflict)));
    assert_eq!(event_count(store.as_ref()).await, 0);
    assert_eq!(
        store
            .application(&tenant(OWNER), &app.id)
            .await
            .unwrap()
            .unwrap()
            .version,
        2
    );
    assert_eq!(
        store
            .rendered_application(&tenant(OWNER), &app.id)
            .await
            .unwrap()
            .unwrap(),
        RenderedApplication {
            version: 2,
            body: record(&next).rendered
        }
    );
    assert_eq!(
        store
            .sandbox_application_version(&tenant(OWNER), &app.id)
            .await
            .unwrap(),
        Some(2),
        "the version probe sees the committed update"
    );
    assert_eq!(
        store
            .sandbox_application_version(&tenant("pk_test_other"), &app.id)
            .await
            .unwrap(),
        None,
        "and is owner-scoped"
    );
    assert!(
        store
            .application(&tenant("pk_test_other"), &app.id)
            .await
            .unwrap()
            .is_none(),
        "rows are owner-scoped"
    );
}

/// Many write sets committed at once share group commits; the ones that fail
/// fail alone, and the rest land whole.
#[tokio::test]
async fn concurrent_write_sets_fail_alone() {
    let (store, _db) = store().await;
    store
        .commit(set(
            vec![Write::Sandbox(SandboxWrite::InsertApplication(record(
                &application(1),
            )))],
            Some("taken"),
        ))
        .await
        .unwrap();
    let stale = application(2);
    store
        .commit(set(
            vec![Write::Sandbox(SandboxWrite::InsertApplication(record(
                &stale,
            )))],
            None,
        ))
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for n in 0..60i64 {
        let store = store.clone();
        let stale = stale.clone();
        tasks.push(tokio::spawn(async move {
            let app = application(10 + n);
            let mut writes = vec![
                Write::Sandbox(SandboxWrite::InsertApplication(record(&app))),
                Write::Events(EventWrite::InsertEvent(event(
                    EventType::ApplicationCreated,
                    10 + n,
                ))),
            ];
            let key = match n % 10 {
                3 => "taken".to_owned(),
                7 => {
                    // Claims to follow version 5: stale.
                    let mut next = stale.clone();
                    next.version = 6;
                    writes.push(Write::Sandbox(SandboxWrite::UpdateApplication(record(
                        &next,
                    ))));
                    format!("key-{n}")
                }
                _ => format!("key-{n}"),
            };
            (n, app, store.commit(set(writes, Some(&key))).await)
        }));
    }
    let mut landed = 0;
    for task in tasks {
        let (n, app, result) = task.await.unwrap();
        let stored = store.application(&tenant(OWNER), &app.id).await.unwrap();
        match n % 10 {
            3 => assert!(
                matches!(result, Err(CommitError::IdempotencyKeyTaken)),
                "{n}: {result:?}"
            ),
            7 => assert!(
                matches!(result, Err(CommitError::Conflict)),
                "{n}: {result:?}"
            ),
            _ => {
                assert!(result.is_ok(), "{n}: {result:?}");
                landed += 1;
            }
        }
        assert_eq!(stored.is_some(), result.is_ok(), "{n}: all or nothing");
    }
    assert_eq!(landed, 48);
    assert_eq!(event_count(store.as_ref()).await, 48);
}

/// A key expires a day after it was recorded, on its owner's clock: after
/// that a new request may record it again; before, it is taken.
#[tokio::test]
async fn idempotency_keys_expire_on_their_owners_clock() {
    let (store, _db) = store().await;
    store.insert_client(active_client()).await.unwrap();
    let day = 86_400_000;
    let keyed = |created_at_ms: i64, status: u16| {
        let mut s = set(vec![], None);
        s.idempotency = Some(IdempotencyRecord {
            status,
            ..idempotency("daily-key", created_at_ms)
        });
        s
    };
    store.commit(keyed(1_000, 201)).await.unwrap();
    assert!(matches!(
        store.commit(keyed(1_000 + day - 1, 202)).await,
        Err(CommitError::IdempotencyKeyTaken)
    ));
    store.commit(keyed(1_000 + day, 202)).await.unwrap();
    let stored = store
        .idempotency(&tenant(OWNER), "daily-key")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (stored.status, stored.created_at_ms),
        (202, 1_000 + day),
        "the expired record was replaced"
    );

    // Pruning: the owner's clock runs 10 days ahead, so its day-old record
    // goes although the service clock's cut-off has not reached it.
    store.commit(set_clock(OWNER, 0, 10 * day)).await.unwrap();
    let mut other = set(vec![], None);
    other.idempotency = Some(IdempotencyRecord {
        owner: tenant(OTHER),
        ..idempotency("daily-key", 1_000 + day)
    });
    store.commit(other).await.unwrap();
    store
        .prune(Retention {
            idempotency_before_ms: day,
            tokens_expired_before_ms: 0,
            events_before_ms: 0,
            journeys_before_ms: 0,
        })
        .await
        .unwrap();
    assert!(
        store
            .idempotency(&tenant(OWNER), "daily-key")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .idempotency(&tenant(OTHER), "daily-key")
            .await
            .unwrap()
            .is_some(),
        "another owner's clock did not move"
    );
}
